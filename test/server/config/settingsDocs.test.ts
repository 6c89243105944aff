import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { BOOKING_SETTINGS } from '../../../server/config/bookingConfig.ts';
import { SERVER_SETTINGS } from '../../../server/config/serverSettings.ts';
import { TERMS_SETTINGS } from '../../../server/config/sourceTerms.ts';

type Declared = Record<string, { default?: unknown; minimum?: number; maximum?: number }>;

/** The rows of the Markdown tables in a file: variable names (a cell may name several, `A` / `B`) and the default cell. */
function rows(file: string): { names: string[]; defaults: string[]; text: string }[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => /^\| `[A-Z_]+`/.test(line))
    .map((line) => {
      const [names, defaults] = line.split('|').slice(1, 3).map((cell) => cell.trim()) as [string, string];
      return { names: [...names.matchAll(/`([A-Z_]+)`/g)].map((match) => match[1]!), defaults: defaults.split(' / ').map((cell) => cell.trim()), text: line };
    });
}

/** Every declared setting with a default is documented in `file` with that default (and its range, when `withRange`). */
function expectDocumented(file: string, settings: Declared, withRange: boolean): void {
  const documented = rows(file);
  for (const [name, schema] of Object.entries(settings)) {
    const row = documented.find((candidate) => candidate.names.length === 1 && candidate.names[0] === name);
    expect(row, `${file} documents ${name}`).toBeDefined();
    if (schema.default !== undefined) expect(row!.defaults[0], `${file}: default of ${name}`).toBe(`\`${schema.default}\``);
    if (withRange && schema.minimum !== undefined) expect(row!.text, `${file}: range of ${name}`).toContain(`${schema.minimum}–${schema.maximum}`);
  }
}

describe('the documented settings', () => {
  it('are those declared, with their defaults, in docs/operations.md', () => {
    expectDocumented('docs/operations.md', SERVER_SETTINGS, false);
  });

  it("are each source's terms, with their defaults, in docs/operations.md", () => {
    expectDocumented('docs/operations.md', TERMS_SETTINGS, false);
  });

  it('are those declared, with their defaults and ranges, in docs/booking.md', () => {
    expectDocumented('docs/booking.md', BOOKING_SETTINGS, true);
  });

  it("have the declared defaults in the README's configuration table", () => {
    const declared: Declared = { ...SERVER_SETTINGS, ...BOOKING_SETTINGS };
    let checked = 0;
    for (const row of rows('README.md')) {
      row.names.forEach((name, index) => {
        const fallback = declared[name]?.default;
        if (fallback === undefined || row.defaults.length !== row.names.length) return;
        expect(row.defaults[index], `README: default of ${name}`).toBe(`\`${fallback}\``);
        checked += 1;
      });
    }
    expect(checked).toBeGreaterThan(5);
  });
});
