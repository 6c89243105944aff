/** Editing BENCHMARKS.md section by section. */

/**
 * Puts one section (its first line the "## " heading) into a BENCHMARKS.md written by a full run:
 * in place of the one with that heading, or before "## Targets" when it has none. The modes that
 * measure one thing alone (`--tracing-only`, `--changes-only`) keep the full run's other figures.
 */
export function replaceSection(markdown: string, section: readonly string[]): string {
  const lines = markdown.split('\n');
  const start = lines.indexOf(section[0]!);
  if (start !== -1) {
    const next = lines.findIndex((line, i) => i > start && line.startsWith('## '));
    lines.splice(start, (next === -1 ? lines.length : next) - start, ...section);
  } else {
    const targets = lines.indexOf('## Targets');
    lines.splice(targets === -1 ? lines.length : targets, 0, ...section);
  }
  return lines.join('\n');
}
