// Drives the page of `damas serve` in headless Chromium (scripts/browser-check.sh starts the
// server and passes its address and the output directory). Fails on any page error.
"use strict";
const { chromium } = require("playwright-core");
const path = require("path");

const [url, out] = process.argv.slice(2);
const problems = [];
// Set while the check sends bad input on purpose: the browser logs the refusal as an error.
let expectRefusal = false;

function check(condition, message) {
  if (!condition) throw new Error(`check failed: ${message}`);
}

async function main() {
  const browser = await chromium.launch({
    executablePath: "/usr/bin/chromium",
    args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
      "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
  const page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
  page.on("pageerror", (error) => problems.push(`page error: ${error.message}`));
  page.on("console", (message) => {
    if (message.type() === "error" && !(expectRefusal && message.text().includes("status of 400"))) {
      problems.push(`console: ${message.text()}`);
    }
  });
  page.on("requestfailed", (request) => {
    // A search the page itself abandons is not a failure.
    if (!request.url().endsWith("/api/think") && !request.url().endsWith("/api/analyse")) {
      problems.push(`request failed: ${request.url()}`);
    }
  });
  const shot = (name) => page.screenshot({ path: path.join(out, `${name}.png`), fullPage: true });
  const errorShown = async () => (await page.locator("#error").isVisible()) ? page.locator("#error").textContent() : null;

  await page.goto(url);
  await page.waitForSelector("#play-board g.piece");
  await page.selectOption("#play-opponent", "alphabeta:depth=2");

  // Play three moves by clicking, the opponent answering each.
  for (let move = 1; move <= 3; move++) {
    await page.waitForFunction(() => document.getElementById("play-status").textContent.includes("(you)"), null, { timeout: 30000 });
    const legal = await page.evaluate(async () => {
      const state = await (await fetch("/api/state", { method: "POST", headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ variant: "russian", moves: [...document.querySelectorAll("#play-moves .ply")].map((li) => li.textContent) }) })).json();
      return state.legal;
    });
    const chosen = legal[0];
    await page.locator(`#play-board g.sq[data-square="${chosen.from}"]`).dispatchEvent("pointerdown");
    const targets = await page.locator("#play-board circle.target").count();
    check(targets > 0, "a selected piece shows where it can go");
    if (move === 1) await shot("play-selected");
    await page.locator(`#play-board g.sq[data-square="${chosen.to}"]`).dispatchEvent("pointerdown");
    await page.waitForFunction((n) => document.querySelectorAll("#play-moves .ply").length >= n, 2 * move, { timeout: 30000 });
  }
  check(await errorShown() === null, `no error while playing: ${await errorShown()}`);
  const history = await page.locator("#play-moves .ply").allTextContents();
  check(history.length === 6, `six plies played, got ${history.join(" ")}`);
  await shot("play-russian");

  // The thinking indicator while a slow opponent searches, and a new game stopping it.
  await page.selectOption("#play-opponent", "alphabeta:time=1");
  await page.selectOption("#play-side", "black");
  await page.waitForFunction(() => document.getElementById("play-status").classList.contains("thinking"), null, { timeout: 10000 });
  await shot("play-thinking");
  await page.waitForFunction(() => document.getElementById("play-status").textContent.includes("(you)"), null, { timeout: 30000 });

  // Boards of other geometries.
  for (const variant of ["international", "turkish", "parachute", "alquerque", "canadian"]) {
    await page.selectOption("#play-side", "white");
    await page.selectOption("#play-variant", variant);
    await page.waitForFunction((v) => document.getElementById("play-summary").textContent.length > 0 &&
      document.querySelectorAll("#play-board g.sq").length > 0, variant);
    await page.waitForTimeout(300);
    const squares = await page.locator("#play-board g.sq").count();
    const info = await page.evaluate(async (v) => (await (await fetch("/api/variants")).json()).find((x) => x.name === v), variant);
    check(squares === info.squares.length, `${variant}: ${squares} squares drawn, ${info.squares.length} playable`);
    const pieces = await page.locator("#play-board g.piece").count();
    check(pieces > 0, `${variant}: pieces drawn`);
    if (variant === "parachute") check(await page.locator("#play-board g.piece.parachutist").count() > 0, "parachutists drawn");
    await shot(`board-${variant}`);
  }
  check(await errorShown() === null, `no error on the boards: ${await errorShown()}`);

  // The run's page, its curve and its games.
  await page.click("button[data-view=runs]");
  await page.waitForSelector("#runs-table tbody tr");
  await page.click("#runs-table tbody tr");
  await page.waitForSelector("#run-losses polyline");
  await page.waitForSelector("#run-games li");
  await shot("runs");

  // A game of the run in the replay view, stepped with the keyboard, with the network's view.
  await page.click("#run-games li");
  await page.waitForFunction(() => !document.getElementById("view-replay").hidden && document.querySelectorAll("#replay-moves .ply").length > 0);
  await page.locator("body").click({ position: { x: 5, y: 500 } });
  for (let i = 0; i < 7; i++) await page.keyboard.press("ArrowRight");
  const status = await page.locator("#replay-status").textContent();
  check(status.startsWith("ply 7 of"), `seven plies stepped: ${status}`);
  const nets = await page.locator("#replay-net option").allTextContents();
  check(nets.length > 1, "the run's network is offered for analysis");
  await page.selectOption("#replay-net", { index: 1 });
  await page.waitForSelector("#replay-analysis .wdl");
  await shot("replay");

  // A malformed PDN pasted: the page shows the server's error.
  expectRefusal = true;
  await page.fill("#replay-pdn", "1. c3-d4 c3-d4 *");
  await page.click("#replay-load");
  await page.waitForSelector("#error:not([hidden])");
  const text = await page.locator("#error").textContent();
  check(text.includes("PDN line 1"), `the PDN error is shown: ${text}`);
  await shot("replay-error");

  await browser.close();
  if (problems.length) throw new Error(problems.join("\n"));
  console.log("browser check passed");
}

main().catch((error) => { console.error(error.message || error); process.exit(1); });
