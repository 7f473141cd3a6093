/**
 * The disk latencies etcd asks for (WEB faq.md): `wal_fsync_duration_seconds` p99 below 10 ms and
 * `backend_commit_duration_seconds` p99 below 25 ms. The slow-disk rule judges against them; the
 * metrics probe uses them to decide whether a thin window deserves a longer look.
 */
export const WAL_FSYNC_P99_LIMIT_S = 0.01;
export const BACKEND_COMMIT_P99_LIMIT_S = 0.025;
