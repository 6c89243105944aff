import { describe, expect, it } from 'vitest';
import { addDays, bookingWindow, isClosedOn, isDate, isOffered, parseSlotId, slotCapacity, slotsOn, zurichDate } from '../../../server/booking/availability.ts';

describe('the sandbox timetable', () => {
  it('gives every activity 4 to 12 places per slot, by id', () => {
    expect([0, 1, 8, 9, 4711].map(slotCapacity)).toEqual([4, 5, 12, 4, 8]);
  });

  it('closes each activity on exactly one weekday', () => {
    for (const id of [1, 9, 4711]) {
      const week = Array.from({ length: 7 }, (_, day) => isClosedOn(id, addDays('2026-11-16', day)));
      expect(week.filter(Boolean)).toHaveLength(1);
      expect(isClosedOn(id, addDays('2026-11-16', week.indexOf(true) + 7))).toBe(true);
    }
  });

  it('writes slot starts with the Swiss offset of the day, winter and summer', () => {
    expect(slotsOn(9, '2026-11-20').map((slot) => slot.startsAt)).toEqual(['2026-11-20T09:00:00+01:00', '2026-11-20T13:00:00+01:00']);
    expect(slotsOn(9, '2026-07-01').map((slot) => [slot.startsAt, new Date(slot.startsAtMs).toISOString()])).toEqual([
      ['2026-07-01T09:00:00+02:00', '2026-07-01T07:00:00.000Z'],
      ['2026-07-01T13:00:00+02:00', '2026-07-01T11:00:00.000Z'],
    ]);
    // The last Sunday of March switches to summer time at 02:00; 09:00 is already summer time.
    expect(slotsOn(1, '2026-03-29')[0]?.startsAt).toBe('2026-03-29T09:00:00+02:00');
  });

  it('reads back a slot id it made, and nothing else', () => {
    const [slot] = slotsOn(4711, '2026-11-20');
    expect(parseSlotId(slot!.id)).toEqual(slot);
    expect(parseSlotId('4711-20261120-1000')).toBeNull();
    expect(parseSlotId('4711-20261131-0900')).toBeNull();
    expect(parseSlotId('4711-20261126-0900')).toBeNull(); // closed that day
    expect(parseSlotId('4711-2026-11-20-0900')).toBeNull();
  });

  it('opens 30 days from today in Zurich, and only slots not yet started', () => {
    // 23:30 UTC on 19 Nov is already 20 Nov in Zurich.
    const now = Date.parse('2026-11-19T23:30:00Z');
    expect(zurichDate(now)).toBe('2026-11-20');
    expect(bookingWindow(now)).toEqual({ first: '2026-11-20', last: '2026-12-19' });
    const [morning] = slotsOn(9, '2026-11-20');
    expect(isOffered(morning!, now)).toBe(true);
    expect(isOffered(morning!, morning!.startsAtMs)).toBe(false);
    expect(isOffered(slotsOn(9, '2026-12-20')[0]!, now)).toBe(false);
  });

  it('knows a calendar date from an impossible one', () => {
    expect(['2028-02-29', '2026-12-31'].map(isDate)).toEqual([true, true]);
    expect(['2026-02-29', '2026-04-31', '2026-13-01', '2026-1-1', ''].map(isDate)).toEqual([false, false, false, false, false]);
  });
});
