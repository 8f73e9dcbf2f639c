import { gzipSync } from 'node:zlib';
import { chromium } from 'playwright-core';
import type { BenchCase } from './cases.ts';
import { benchSessions, required } from './users.ts';

const PAGE_LOADS = 20;
const CHROMIUM_PATH = process.env.CHROMIUM_PATH || '/usr/bin/chromium';

export const paymentPageCase: BenchCase = {
  name: 'payment-page',
  description: `hosted page in headless Chromium, ${PAGE_LOADS} cold loads: navigation to an interactive card form; gzipped weight of the page's JS+CSS and of the UMD SDK`,
  unit: 'loads',
  async setup(app) {
    return { sessions: JSON.stringify(await benchSessions(app, PAGE_LOADS)) };
  },
  async batch(baseUrl, data) {
    const sessions = JSON.parse(required(data, 'sessions')) as { token: string; sessionId: string }[];
    const html = await (await fetch(`${baseUrl}/third-party`)).text();
    // fetch() decompresses whatever the server sends, so the gzipped weight is computed here from the raw bytes.
    let weight = 0;
    let rawWeight = 0;
    const onDemand: Record<string, number> = {};
    for (const asset of html.matchAll(/(?:src|href)="(\/third-party\/assets\/[^"]+)"/g)) {
      const body = new Uint8Array(await (await fetch(`${baseUrl}${asset[1]}`)).arrayBuffer());
      rawWeight += body.byteLength;
      weight += gzipSync(body, { level: 9 }).byteLength;
      // Parts loaded when first needed (the Recurring rent tab, the page with Stripe): named by the entry script.
      for (const chunk of new TextDecoder().decode(body).matchAll(/["'`]\.\/([\w-]+\.js)["'`]/g)) {
        const part = new Uint8Array(
          await (await fetch(`${baseUrl}/third-party/assets/${chunk[1]}`)).arrayBuffer(),
        );
        onDemand[`on_demand_gzip_bytes_${chunk[1]!.replace(/-[\w]+\.js$/, '')}`] = gzipSync(part, {
          level: 9,
        }).byteLength;
      }
    }
    const sdk = new Uint8Array(await (await fetch(`${baseUrl}/sdk/rentpay.umd.js`)).arrayBuffer());
    const sdkWeight = gzipSync(sdk, { level: 9 }).byteLength;
    const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: ['--no-sandbox'] });
    try {
      const timeToForm = async (url: string, ready: string) => {
        const context = await browser.newContext();
        const page = await context.newPage();
        const began = performance.now();
        await page.goto(url, { waitUntil: 'commit' });
        await page.locator(ready).waitFor({ state: 'visible' });
        const elapsed = performance.now() - began;
        await context.close();
        return elapsed;
      };
      // The browser's own floor: a one-field page from a data: URL, no network at all.
      const floor = await timeToForm('data:text/html,<label>Card number<input id="n"></label>', '#n');
      const latenciesMs: number[] = [];
      const began = performance.now();
      for (const { token, sessionId } of sessions) {
        const url = `${baseUrl}/third-party?token=${token}&session_id=${sessionId}`;
        latenciesMs.push(await timeToForm(url, '#card-number:enabled'));
      }
      return {
        units: sessions.length,
        seconds: (performance.now() - began) / 1000,
        latenciesMs,
        extra: {
          gzip_bytes: weight,
          raw_bytes: rawWeight,
          ...onDemand,
          sdk_umd_gzip_bytes: sdkWeight,
          blank_page_ms: Math.round(floor),
        },
      };
    } finally {
      await browser.close();
    }
  },
};
