/**
 * The argument checks every `Channel` implementation shares (production here, the simulator in
 * `@moonpool/sim`), so both refuse the same input with the same message.
 */

/** A channel name must be a non-empty string. */
export function checkChannelName(name: unknown): void {
  if (typeof name !== "string" || name.length === 0) {
    throw new TypeError(`a channel needs a non-empty string name, got ${JSON.stringify(name)}`);
  }
}

/** `undefined` is what `recv` returns for "closed and drained", so it cannot be sent. */
export function checkSendable(channelName: string, value: unknown): void {
  if (value === undefined) {
    throw new TypeError(
      `send(undefined) on channel '${channelName}': undefined is what recv() returns once the channel is closed and drained; send null or a wrapper object instead`,
    );
  }
}

/** `recv({ timeoutMs })` takes a finite, non-negative duration in milliseconds. */
export function checkRecvTimeoutMs(channelName: string, timeoutMs: number): void {
  if (!(Number.isFinite(timeoutMs) && timeoutMs >= 0)) {
    throw new RangeError(
      `recv({ timeoutMs }) on channel '${channelName}': timeoutMs must be a finite number of milliseconds >= 0, got ${String(timeoutMs)}`,
    );
  }
}
