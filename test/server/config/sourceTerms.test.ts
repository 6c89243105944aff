import { describe, expect, it } from 'vitest';
import { ConfigError, readConfig } from '../../../server/config/config.ts';
import { MAX_ATTRIBUTION_CHARS, MAX_LICENSE_CHARS } from '../../../server/config/sourceTerms.ts';

const LICENSE_ALLOWED = `expected an SPDX licence expression (e.g. CC-BY-SA-4.0, or LicenseRef-<name> for terms the SPDX list lacks) or the http(s) URL of the terms, at most ${MAX_LICENSE_CHARS} characters`;
const ATTRIBUTION_ALLOWED = `expected one line of text, at most ${MAX_ATTRIBUTION_CHARS} characters`;

describe("each source's terms", () => {
  it('takes SPDX ids, expressions, LicenseRef- ids and http(s) URLs as licences, trimmed', () => {
    const { terms } = readConfig({
      ACTIVITIES_LICENSE: ' https://www.example.ch/terms?lang=de ',
      SNOWDATA_LICENSE: 'LicenseRef-My-Contract',
      TOURS_LICENSE: 'CC-BY-SA-4.0 OR ODbL-1.0',
      ATTRACTIONS_LICENSE: 'CC0-1.0',
    });
    expect(Object.fromEntries(Object.entries(terms).map(([source, { license }]) => [source, license]))).toEqual({
      activities: 'https://www.example.ch/terms?lang=de',
      snowdata: 'LicenseRef-My-Contract',
      tours: 'CC-BY-SA-4.0 OR ODbL-1.0',
      attractions: 'CC0-1.0',
    });
  });

  it('takes any one line of text as an attribution, and a blank one as unset', () => {
    const { terms } = readConfig({ TOURS_ATTRIBUTION: '  © Zürich Tourismus & SchweizMobil  ', ATTRACTIONS_ATTRIBUTION: '   ' });
    expect(terms.tours.attribution).toBe('© Zürich Tourismus & SchweizMobil');
    expect(terms.attractions.attribution).toBe('Switzerland Tourism, MySwitzerland Open Data');
  });

  it.each([
    ['TOURS_LICENSE', 'CC-BY-SA', `TOURS_LICENSE="CC-BY-SA": not a known SPDX licence id or expression; ${LICENSE_ALLOWED}`],
    ['ATTRACTIONS_LICENSE', 'CC BY-SA 4.0', `ATTRACTIONS_LICENSE="CC BY-SA 4.0": not a known SPDX licence id or expression; ${LICENSE_ALLOWED}`],
    ['SNOWDATA_LICENSE', 'ftp://example.ch/terms', `SNOWDATA_LICENSE="ftp://example.ch/terms": not a known SPDX licence id or expression; ${LICENSE_ALLOWED}`],
    ['ACTIVITIES_LICENSE', 'https://', `ACTIVITIES_LICENSE="https://": not a URL; ${LICENSE_ALLOWED}`],
    ['TOURS_LICENSE', `https://example.ch/${'a'.repeat(MAX_LICENSE_CHARS)}`, `TOURS_LICENSE: ${MAX_LICENSE_CHARS + 19} characters; ${LICENSE_ALLOWED}`],
    ['TOURS_ATTRIBUTION', 'Line one\nline two', `TOURS_ATTRIBUTION: holds a line break or another control character; ${ATTRIBUTION_ALLOWED}`],
    ['ACTIVITIES_ATTRIBUTION', 'ü'.repeat(MAX_ATTRIBUTION_CHARS + 1), `ACTIVITIES_ATTRIBUTION: ${MAX_ATTRIBUTION_CHARS + 1} characters; ${ATTRIBUTION_ALLOWED}`],
  ])('refuses %s=%j, naming the variable and what is allowed', (name, value, message) => {
    expect(() => readConfig({ [name]: value })).toThrow(new ConfigError(message));
  });

  it('counts an attribution in characters, not UTF-16 units', () => {
    expect(readConfig({ SNOWDATA_ATTRIBUTION: '🏔'.repeat(MAX_ATTRIBUTION_CHARS) }).terms.snowdata.attribution).toBe('🏔'.repeat(MAX_ATTRIBUTION_CHARS));
  });
});
