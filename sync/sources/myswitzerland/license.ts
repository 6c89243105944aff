/**
 * The licence a MySwitzerland record states (`subjectOf.license`, a schema.org CreativeWork's
 * licence), as the API answers licences: an SPDX id where one names it.
 */

/**
 * A Creative Commons licence URL as its SPDX id (`http://creativecommons.org/licenses/by-sa/4.0/`
 * → `CC-BY-SA-4.0`, the CC0 dedication → `CC0-1.0`); any other text as stated, trimmed. Only the
 * international (unported) licences are mapped: SPDX names few national ports, so a port's URL
 * is kept as the URL of its terms.
 *
 * @returns null for no text
 */
export function licenseOf(stated: string | null): string | null {
  const text = stated?.trim() ?? '';
  if (text === '') return null;
  const url = /^https?:\/\/(?:www\.)?creativecommons\.org\/(?:licenses\/(by|by-sa|by-nd|by-nc|by-nc-sa|by-nc-nd)\/(1\.0|2\.0|2\.5|3\.0|4\.0)|publicdomain\/(zero)\/1\.0)\/?(?:legalcode(?:\.[a-z]{2})?)?$/i.exec(text);
  if (url === null) return text;
  if (url[3] !== undefined) return 'CC0-1.0';
  return `CC-${url[1]!.toUpperCase()}-${url[2]}`;
}
