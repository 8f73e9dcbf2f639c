/** axe-core in a page's frame: the WCAG 2.0–2.2 A and AA rules, violations as "state: rule (count: target)". */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import type { Frame } from 'playwright-core';

const axeSource = fs.readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
export const WCAG_A_AA = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa'];

export async function axeViolations(frame: Frame, state: string): Promise<string[]> {
  if (!(await frame.evaluate(() => 'axe' in window))) await frame.evaluate(axeSource);
  const found = await frame.evaluate(async (tags) => {
    // biome-ignore lint/suspicious/noExplicitAny: axe is injected above
    const result = await (window as any).axe.run(document, { runOnly: tags });
    // biome-ignore lint/suspicious/noExplicitAny: axe's result shape
    return result.violations.map((v: any) => `${v.id} (${v.nodes.length}: ${v.nodes[0]?.target})`);
  }, WCAG_A_AA);
  return found.map((violation: string) => `${state}: ${violation}`);
}
