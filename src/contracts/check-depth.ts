/**
 * How deep a check goes: `health` asks every member Health and Status (a few seconds); `diagnose`
 * adds the metrics windows, clocks, alarms and the Kubernetes probes, then runs the rules. One name
 * for the one choice that the CLI (`health` / `diagnose`), the chat commands, the queued job, the
 * report's `kind` field (DESIGN.md) and the rerun action make.
 */
export const CHECK_DEPTHS = ['health', 'diagnose'] as const;

export type CheckDepth = (typeof CHECK_DEPTHS)[number];
