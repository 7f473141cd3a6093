/** A Redis read the chat side waits for while a user waits: at most this long (Slack allows 3 s in all). */
export const CHAT_REDIS_DEADLINE_MS = 1500;

/** `work`'s value, or `fallback()` when it takes longer than `ms` (or fails). */
export async function withDeadline<T, F>(work: Promise<T>, ms: number, fallback: () => F): Promise<T | F> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<F>((resolve) => {
    timer = setTimeout(() => resolve(fallback()), ms);
  });
  try {
    return await Promise.race([work.catch((): F => fallback()), late]);
  } finally {
    clearTimeout(timer);
  }
}
