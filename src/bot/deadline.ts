/** A Redis read the chat side waits for while a user waits: at most this long (Slack allows 3 s in all). */
export const CHAT_REDIS_DEADLINE_MS = 1500;
