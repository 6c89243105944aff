import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { PLAUSIBILITY_RULES } from '../../../../sync/publish/gate/plausibilityRules.ts';
import { FILL_FLOORS, SOURCE_RULES } from '../../../../sync/publish/gate/sourceRules.ts';
import { TEXT_CAPS } from '../../../../sync/sources/text.ts';

const docs = readFileSync(new URL('../../../../docs/sync.md', import.meta.url), 'utf8');
const gateSection = docs.slice(docs.indexOf('## The publish gate'), docs.indexOf('\n## ', docs.indexOf('## The publish gate') + 1));

describe('docs/sync.md, The publish gate', () => {
  it('lists every refusal rule with its threshold and reason', () => {
    for (const rule of SOURCE_RULES) expect(gateSection).toContain(`| \`${rule.rule}\` | every area | ${rule.checks} | ${rule.threshold} | refuse source | ${rule.reason} |`);
  });

  it('lists every plausibility rule with its limit, action and reason', () => {
    for (const rules of Object.values(PLAUSIBILITY_RULES)) {
      for (const rule of rules) {
        const row = gateSection.split('\n').find((line) => line.startsWith(`| \`${rule.rule}\` |`) && line.includes(`| ${rule.limit.replace(/\|/g, '\\|')} |`));
        expect(row, `${rule.rule} ${rule.limit}`).toBeDefined();
        expect(row).toContain(rule.action === 'clear-field' ? '| clear field' : '| reject record |');
        expect(row).toContain(rule.reason);
        for (const path of rule.paths) expect(row).toContain(`\`${path}\``);
      }
    }
  });

  it('states every text cap and every first-sync floor', () => {
    for (const [kind, cap] of Object.entries(TEXT_CAPS)) expect(gateSection).toContain(`| ${kind} | ${cap.maxChars.toLocaleString('en')} |`);
    for (const [area, floors] of Object.entries(FILL_FLOORS)) {
      expect(gateSection).toContain(`| ${area} | ${Object.entries(floors).map(([path, floor]) => `\`${path}\` ${Math.round(floor * 100)}%`).join(', ')} |`);
    }
  });
});
