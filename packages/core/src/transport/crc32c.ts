/**
 * CRC-32C (Castagnoli, reflected polynomial 0x82F63B78), the checksum of every transport frame.
 * Table-driven, one byte at a time: `crc32c(utf8("123456789")) === 0xE3069283`.
 */
const TABLE = /* @__PURE__ */ (() => {
  const table = new Int32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ 0x82f63b78 : c >>> 1;
    table[n] = c;
  }
  return table;
})();

/** Continues a CRC-32C over `bytes` from a previous result (`0` to start). Returns an unsigned 32-bit value. */
export function crc32cUpdate(crc: number, bytes: Uint8Array, start = 0, end = bytes.length): number {
  let c = ~crc;
  for (let i = start; i < end; i++) c = TABLE[(c ^ bytes[i]!) & 0xff]! ^ (c >>> 8);
  return ~c >>> 0;
}

/** The CRC-32C of `bytes` (unsigned 32-bit). */
export function crc32c(bytes: Uint8Array): number {
  return crc32cUpdate(0, bytes);
}
