/**
 * docs/booking.md's curl walk-through, as written: it sets the base URL the way a reader runs it
 * and hard-codes no id or date. walkthrough.slow.test.ts runs it with bash against the server.
 */

import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { WALKTHROUGH_DOC, walkthroughBlocks } from './helpers.ts';

describe('the booking walk-through in docs/booking.md', () => {
  it('sets the base URL at the top, to the server default, and hard-codes no id or date', async () => {
    const blocks = walkthroughBlocks(await readFile(WALKTHROUGH_DOC, 'utf8'));
    expect(blocks.length).toBeGreaterThan(0);
    expect(blocks[0]!.split('\n')[0]).toBe('B=${B:-http://localhost:4000}');
    const commands = blocks.join('\n').split('\n').filter((line) => !line.trimStart().startsWith('#'));
    for (const line of commands) {
      expect(line, 'an id or a date written into a command').not.toMatch(/\b(rsv|cart|bkg|itm|pay)_[0-9a-f]{16}\b|\b20\d\d-\d\d-\d\d\b/);
    }
  });
});
