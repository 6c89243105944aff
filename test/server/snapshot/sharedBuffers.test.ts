import { describe, expect, it } from 'vitest';
import { SharedBuffers } from '../../../server/snapshot/sharedBuffers.ts';

describe('SharedBuffers', () => {
  it('makes a shared buffer of the length asked for when none is free', () => {
    const buffer = new SharedBuffers().take(100);
    expect(buffer).toBeInstanceOf(SharedArrayBuffer);
    expect(buffer.byteLength).toBe(100);
  });

  it('hands a buffer given back out again, the smallest one large enough', () => {
    const buffers = new SharedBuffers();
    const large = new SharedArrayBuffer(1_000);
    const small = new SharedArrayBuffer(100);
    buffers.give(large);
    buffers.give(small);
    expect(buffers.take(50)).toBe(small);
    expect(buffers.take(50)).toBe(large);
    expect(buffers.take(50)).not.toBe(large);
  });

  it('drops the free buffers when none is large enough, so that small ones do not pile up', () => {
    const buffers = new SharedBuffers();
    const small = new SharedArrayBuffer(100);
    buffers.give(small);
    const large = buffers.take(1_000);
    expect(large.byteLength).toBe(1_000);
    expect(buffers.take(10)).not.toBe(small);
  });

  it('holds none after clear', () => {
    const buffers = new SharedBuffers();
    const buffer = new SharedArrayBuffer(100);
    buffers.give(buffer);
    buffers.clear();
    expect(buffers.take(100)).not.toBe(buffer);
  });
});
