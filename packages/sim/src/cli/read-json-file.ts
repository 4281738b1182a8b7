/**
 * Reads a JSON file in chunks, building its value as the bytes arrive and never holding the text
 * as one string: a report of a few hundred thousand seeds is longer than the longest string V8
 * can make, so `JSON.parse(await readFile(...))` cannot read what the report writer wrote.
 */
import { createReadStream } from "node:fs";
import { JSONParser } from "@streamparser/json";

/** Bytes read at a time. */
export const READ_CHUNK_BYTES = 1 << 20;

/** The value of the JSON document in `filePath`; throws a plain Error saying where the text breaks. */
export async function readJsonFile(filePath: string, chunkBytes = READ_CHUNK_BYTES): Promise<unknown> {
  // Only the root is emitted: nested values are built in place, one record at a time.
  const parser = new JSONParser({ paths: ["$"], keepStack: false });
  let root: unknown;
  let complete = false;
  parser.onValue = ({ value }) => {
    root = value;
    complete = true;
  };
  for await (const chunk of createReadStream(filePath, { highWaterMark: chunkBytes })) {
    // Bytes, not text: a UTF-8 character split across two chunks is joined by the tokenizer.
    parser.write(chunk as Buffer);
  }
  if (!parser.isEnded) parser.end();
  if (!complete) throw new Error("the file holds no JSON value");
  return root;
}
