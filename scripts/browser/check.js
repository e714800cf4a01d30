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
  const api = (route, body) => page.evaluate(async ([route, body]) => {
    const options = body ? { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) } : {};
    return (await fetch(route, options)).json();
  }, [route, body]);
  const pageMoves = () => page.locator("#play-moves .ply").allTextContents();

  // A complete game of Russian by clicks against alpha-beta at depth 1, the human side always
  // playing its first legal move; the result the page shows must be the server's.
  await page.selectOption("#play-opponent", "alphabeta:depth=1");
  await page.click("#play-new");
  for (let turn = 0; ; turn++) {
    check(turn < 300, "the game ends");
    await page.waitForFunction(() => {
      const status = document.getElementById("play-status").textContent;
      return status.includes("(you)") || status.startsWith("Game over");
    }, null, { timeout: 30000 });
    if ((await page.locator("#play-status").textContent()).startsWith("Game over")) break;
    const before = (await pageMoves()).length;
    const state = await api("/api/state", { variant: "russian", moves: await pageMoves() });
    const chosen = state.legal[0];
    await page.locator(`#play-board g.sq[data-square="${chosen.from}"]`).dispatchEvent("pointerdown");
    check(await page.locator("#play-board circle.target").count() > 0, "a selected piece shows where it can go");
    if (turn === 0) await shot("play-selected");
    await page.locator(`#play-board g.sq[data-square="${chosen.to}"]`).dispatchEvent("pointerdown");
    if (await page.locator("#play-choices").isVisible()) {
      await page.locator("#play-choices button", { hasText: chosen.text }).first().click();
    }
    await page.waitForFunction((n) => document.querySelectorAll("#play-moves .ply").length > n, before, { timeout: 30000 });
  }
  check(await errorShown() === null, `no error while playing: ${await errorShown()}`);
  const played = await pageMoves();
  const final = await api("/api/state", { variant: "russian", moves: played });
  const shown = await page.locator("#play-status").textContent();
  check(final.outcome && shown === `Game over: ${final.outcome.text} (${final.outcome.result})`,
    `the page shows the server's result: "${shown}" against ${JSON.stringify(final.outcome)}`);
  console.log(`a game of ${played.length} plies by clicks: ${shown}`);
  await shot("play-russian");

  // The thinking indicator while a slow opponent searches, and a new game stopping it.
  await page.selectOption("#play-opponent", "alphabeta:time=1");
  await page.selectOption("#play-side", "black");
  await page.waitForFunction(() => document.getElementById("play-status").classList.contains("thinking"), null, { timeout: 10000 });
  await shot("play-thinking");
  await page.waitForFunction(() => document.getElementById("play-status").textContent.includes("(you)"), null, { timeout: 30000 });

  // Every piece of the start position drawn where the FEN says, on a numbered and an
  // algebraic all-squares board.
  await page.selectOption("#play-side", "white");
  for (const variant of ["international", "dameo"]) {
    await page.selectOption("#play-variant", variant);
    await page.waitForFunction((v) => document.getElementById("play-fen-now").textContent.length > 0 &&
      document.getElementById("play-summary").textContent.length > 0 &&
      document.querySelector("#play-board g.sq") !== null, variant);
    await page.waitForTimeout(300);
    const info = (await api("/api/variants")).find((v) => v.name === variant);
    const byName = new Map(info.squares.map((sq) => [sq.name, sq]));
    const fields = info.start_fen.split(":").slice(1);
    let expected = 0;
    for (const field of fields) {
      const color = field[0] === "W" ? "white" : "black";
      for (const token of field.slice(1).split(",").filter((t) => t)) {
        const sq = byName.get(token.replace(/^[KP]/, ""));
        check(sq, `${variant}: FEN square ${token} is on the board`);
        const piece = page.locator(`#play-board g.piece[data-square="${sq.square}"]`);
        check(await piece.count() === 1, `${variant}: a piece on ${token}`);
        const [x, y, cls] = await Promise.all([piece.getAttribute("data-x"), piece.getAttribute("data-y"), piece.getAttribute("class")]);
        check(Number(x) === sq.column * 60 + 30 && Number(y) === sq.row * 60 + 30, `${variant}: ${token} drawn at row ${sq.row}, column ${sq.column}`);
        check(cls.includes(color), `${variant}: ${token} is ${color}`);
        expected++;
      }
    }
    check(await page.locator("#play-board g.piece").count() === expected, `${variant}: ${expected} pieces drawn`);
    await shot(`board-${variant}`);
  }

  // Boards of other geometries.
  for (const variant of ["turkish", "parachute", "alquerque", "canadian"]) {
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
  await page.locator("#runs-table tbody tr", { hasText: "bench/tiny" }).click();
  await page.waitForSelector("#run-losses polyline", { state: "attached" });
  await page.waitForSelector("#run-rating polyline", { state: "attached" });
  await page.waitForSelector("#run-games li");
  await page.waitForSelector("#run-eval-games li");
  const run = await api("/api/run?name=bench%2Ftiny");
  check(run.curve && run.curve.points.length > 0, "the benched run has a curve");
  const drawn = (await page.locator("#run-rating polyline").first().getAttribute("points")).trim().split(/\s+/).length;
  check(drawn === run.curve.points.length, `the curve has ${drawn} points, the run ${run.curve.points.length} rated checkpoints`);
  await shot("runs");

  // A game of the run in the replay view, stepped with the keyboard, with the network's view.
  await page.click("#run-eval-games li");
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
