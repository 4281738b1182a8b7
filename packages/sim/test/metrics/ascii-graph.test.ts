import { describe, expect, it } from "vitest";
import { renderAsciiGraph } from "../../src/index.ts";

describe("renderAsciiGraph", () => {
  const goodput = {
    label: "goodput",
    points: [
      [0, 100],
      [1000, 100],
      [2000, 10],
      [3000, 10],
      [4000, 100],
    ] as [number, number][],
  };
  const offered = {
    label: "offered",
    points: [
      [0, 100],
      [4000, 100],
    ] as [number, number][],
  };
  const text = renderAsciiGraph([goodput, offered], {
    title: "load",
    unit: "req/s",
    widthCols: 41,
    heightRows: 11,
    marks: [{ atMs: 2000, label: "trigger" }],
  });
  const lines = text.split("\n");

  it("draws a title, a y axis with the unit, a time axis and a legend", () => {
    expect(lines[0]).toBe("load");
    expect(lines[1]).toMatch(/^100 req\/s ┤/);
    expect(lines[11]).toMatch(/^ +0 req\/s ┤/);
    expect(lines[12]).toMatch(/^ +└─{41}$/);
    expect(lines[13]).toMatch(/0s +2s +4s {2}\(simulated time\)$/);
    expect(lines[14]).toContain("* goodput req/s   + offered req/s   | trigger at 2s");
  });

  it("places each value in the row and column that match the series, and the trigger mark at its time", () => {
    const plot = lines.slice(1, 12).map((l) => l.slice(l.search(/[┤│]/) + 1));
    const column = (c: number) => plot.map((row) => row[c]).join("");
    // Column 20 is t = 2000 ms: goodput 10 of 100 sits on row 1 from the bottom; the mark fills the rest.
    expect(column(20)).toBe("+||||||||*|");
    // Column 0 (t = 0): both series at 100, the top row; the first series wins the cell.
    expect(plot[0]![0]).toBe("*");
    // Column 30 (t = 3000): goodput still 10, offered 100.
    expect(column(30)).toBe("+        * ");
  });

  it("rejects sizes it cannot draw", () => {
    expect(() => renderAsciiGraph([goodput], { widthCols: 3 })).toThrow(/widthCols must be an integer >= 8/);
  });
});
