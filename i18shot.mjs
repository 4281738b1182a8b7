import { chromium } from "playwright-core";
import { mkdtempSync } from "node:fs";
const [,, file, out, w, h] = process.argv;
const userDataDir = mkdtempSync("/tmp/i18-chrome-");
const ctx = await chromium.launchPersistentContext(userDataDir, { executablePath: "/usr/bin/chromium", headless: true, viewport: { width: +w || 1280, height: +h || 800 },
  args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"] });
const page = ctx.pages()[0] ?? await ctx.newPage();
page.on("console", (m) => console.log("console:", m.text()));
page.on("pageerror", (e) => console.log("pageerror:", e.message));
await page.goto("file://" + file);
await page.waitForSelector("body[data-ready=true]");
console.log(await page.evaluate(() => window.moonpoolTimeline ? JSON.stringify(window.moonpoolTimeline.stats()) : "campaign"));
await page.screenshot({ path: out, fullPage: process.argv[7] === "full" });
await ctx.close();
