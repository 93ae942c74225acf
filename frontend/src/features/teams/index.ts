/**
 * The teams feature's public API: what other features may use. The router
 * lazy-loads the teams screens by their own paths, not from here, so the
 * board (and its drag and drop) stays out of other screens' chunks.
 */
export { AddToPipelineButton } from "./components/add-to-pipeline";
