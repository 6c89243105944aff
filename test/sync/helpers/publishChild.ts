/**
 * Run as a child process by publish.test.ts, which kills it mid-publish:
 * `node --import tsx publishChild.ts <dataDir> <routesPerLocale>`.
 */

import { publish } from '../../../sync/publish/publish.ts';
import { LOCALES } from '../../../sync/format.ts';
import { snowdata } from './records.ts';

const [dataDir, count] = process.argv.slice(2);
await publish({
  dataDir: dataDir!,
  outcomes: { snowdata: { ok: true, fetched: snowdata(Number(count), '2026-11-22T04:00:00.000Z', LOCALES) } },
  now: new Date('2026-11-22T04:00:00Z'),
});
process.stdout.write('published\n');
