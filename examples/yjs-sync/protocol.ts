/** The messages between peers and from the editor, each a frame starting with its type. */
export const MESSAGE = {
  /** A y-protocols sync message (step 1, step 2 or update). */
  sync: 0,
  /** A y-protocols awareness update. */
  awareness: 1,
  /** Editor → peer: insert this item (a string id). */
  insert: 2,
  /** Peer → editor: the item is in the peer's document. */
  insertAck: 3,
} as const;

/** Peers listen for each other here. */
export const SYNC_PORT = 7000;
/** Peers listen for the editor here. */
export const EDIT_PORT = 7001;

/** Key of a peer's document on the state board (read by the editor's convergence check). */
export const docKey = (ip: string): string => `yjs-doc:${ip}`;
