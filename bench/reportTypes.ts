/**
 * The types the benchmark's report shares with the modules that measure for it (reload, peers):
 * one module below them all, so none of them imports the report.
 */

import type { CpuCost, PairedResult } from './paired.ts';
import type { ServerSetup } from './scenarios.ts';

/** One scenario measured against one server start. */
export interface HttpRun {
  scenario: string;
  description: string;
  /** Every request a document the server has not seen lately (bench/scenarios.ts). */
  unseen: boolean;
  setup: ServerSetup;
  /** The environment the real server ran with (on top of PORT, HOST, DATA_DIR, LOG_LEVEL). */
  env: Record<string, string>;
  /** Operation names sent, in the order each connection cycles through them (each name once for unseen documents). */
  operations: string[];
  /** Response body size per operation, in bytes (the smallest and the largest for unseen documents). */
  responseBytes: number[];
  /** Processes in the real server's process group (primary and workers); null when unknown. */
  serverProcesses: number | null;
  /** Spawn to ready of the real server, in ms. */
  serverReadyMs: number;
  /** Digest of the server bundle and its schema when the server started; differing digests in one run measured different code. */
  serverCodeHash: string;
  paired: PairedResult | null;
  /** CPU per answer of both sides at a fixed rate (one-worker runs); null when not measured. */
  cpuCost: CpuCost | null;
  /** Why the scenario has no figures. */
  error: string | null;
}

/** One target of BENCHMARKS.md checked against a figure. */
export interface TargetCheck {
  /** The target in words. */
  target: string;
  /** Where the figure comes from: scenario and setup, or dataset. */
  figure: string;
  value: string;
  /** The number compared with the target (per cent, ms, factor), to rank the figures of one target; null when not measured. */
  measured: number | null;
  higherIsBetter: boolean;
  /** true met, false missed, null not measured. */
  met: boolean | null;
  note: string | null;
}
