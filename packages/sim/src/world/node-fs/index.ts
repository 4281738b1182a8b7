/**
 * The simulated `node:fs` (`builder.nodeFs()`): a directory tree per machine over the simulated
 * disk, Node's error objects, and the routing of the builtins' calls to it. `SimFileSystem` and
 * `OpenFile` are the internal API beneath the `node:fs` facade, for other file-backed layers.
 */
import "./install.ts";

export {
  enableNodeFs,
  worldFsOf,
  currentFsCaller,
  FdTable,
  WorldFs,
  type NodeFsOptions,
  type FsCaller,
} from "./state.ts";
export { SimFileSystem, joinPath, type FsNode, type FileNode, type DirNode, type OpenMode } from "./tree.ts";
export { OpenFile } from "./open-file.ts";
export { fsError, isNodeFsError, type NodeFsError } from "./errors.ts";
export { installNodeFs } from "./install.ts";
