// Entry of the people worker thread: registers tsx in this thread, then loads the TypeScript worker.
// (A worker thread does not inherit the TypeScript loader of its parent, and vitest's transform does not
// apply to it either, so the thread brings its own.)
import { tsImport } from 'tsx/esm/api';

await tsImport('./people-worker.ts', import.meta.url);
