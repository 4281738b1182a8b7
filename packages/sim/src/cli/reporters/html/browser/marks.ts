/**
 * The shapes of the diagram's marks and arrows, collected into batches of one style each and drawn
 * as a few paths of at most CHUNK shapes: one stroke per shape is slow, and so is one huge path of
 * overlapping shapes.
 */
import type { Category, PageEvent } from "./timeline-types.ts";

const CHUNK = 64;

export type Shape = "failure" | "cross" | "triangle" | "square" | "down" | "tiny" | "dot" | "small";

export interface Batch {
  readonly color: string;
  readonly shape?: Shape;
  readonly dim: boolean;
  readonly faint?: boolean;
  readonly category: Category;
  readonly paths: Path2D[];
  readonly heads: Path2D[];
  count: number;
}

export function shapeOf(e: PageEvent): Shape {
  if (e.category === "process") return /crash|kill|wipe/.test(e.kind) ? "cross" : "triangle";
  if (e.category === "failure") return "failure";
  if (e.category === "partition") return "square";
  if (e.category === "fault") return "down";
  return e.category === "fact" ? "dot" : "small";
}

/** Fills close each shape themselves; an explicit closePath() is slow on a path of many shapes. */
export function addShape(path: Path2D, shape: Shape, x: number, y: number): void {
  switch (shape) {
    case "failure":
      path.moveTo(x + 7, y);
      path.arc(x, y, 7, 0, 6.283);
      break;
    case "cross":
      path.moveTo(x - 5, y - 5);
      path.lineTo(x + 5, y + 5);
      path.moveTo(x + 5, y - 5);
      path.lineTo(x - 5, y + 5);
      break;
    case "triangle":
      path.moveTo(x, y - 7);
      path.lineTo(x + 6, y + 5);
      path.lineTo(x - 6, y + 5);
      break;
    case "square":
      path.rect(x - 4, y - 4, 8, 8);
      break;
    case "down":
      path.moveTo(x, y + 5);
      path.lineTo(x + 4, y - 3);
      path.lineTo(x - 4, y - 3);
      break;
    case "tiny":
      path.rect(x - 2.5, y - 2.5, 5, 5);
      break;
    case "dot":
      path.moveTo(x + 4, y);
      path.arc(x, y, 4, 0, 6.283);
      break;
    default:
      path.moveTo(x + 3, y);
      path.arc(x, y, 3, 0, 6.283);
  }
}

export function batch(
  batches: Map<string, Batch>,
  key: string,
  make: () => Omit<Batch, "paths" | "heads" | "count">,
): Batch {
  let b = batches.get(key);
  if (b === undefined) {
    b = { ...make(), paths: [new Path2D()], heads: [new Path2D()], count: 0 };
    batches.set(key, b);
  }
  return b;
}

/** The path the next shape of a batch goes into (at most CHUNK shapes per path). */
export function pathOf(b: Batch, list: Path2D[]): Path2D {
  if (b.count > 0 && b.count % CHUNK === 0 && list.length * CHUNK <= b.count) list.push(new Path2D());
  return list[list.length - 1]!;
}

export function addArrow(b: Batch, x0: number, y0: number, x1: number, y1: number, headless: boolean): void {
  const line = pathOf(b, b.paths);
  const head = pathOf(b, b.heads);
  b.count++;
  line.moveTo(x0, y0);
  line.lineTo(x1, y1);
  if (headless) return;
  const a = Math.atan2(y1 - y0, x1 - x0);
  head.moveTo(x1, y1);
  head.lineTo(x1 - 7 * Math.cos(a - 0.4), y1 - 7 * Math.sin(a - 0.4));
  head.lineTo(x1 - 7 * Math.cos(a + 0.4), y1 - 7 * Math.sin(a + 0.4));
}

export function niceStep(span: number): number {
  const raw = span / 8;
  const p = Math.pow(10, Math.floor(Math.log10(raw)));
  const m = raw / p;
  return (m < 2 ? 2 : m < 5 ? 5 : 10) * p;
}
