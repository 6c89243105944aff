/** Above this many tracked clients, clients whose bucket has refilled are forgotten. */
const MAX_TRACKED_CLIENTS = 10_000;

/** Decides whether one more request of a client may run now. */
export type RateLimiter = (client: string, now: number) => { allowed: true } | { allowed: false; retryAfterS: number };

/**
 * Creates a token-bucket rate limiter: each client may send `limitPerMinute` requests at once and
 * then one every `60 / limitPerMinute` seconds.
 *
 * @param limitPerMinute at least 1
 * @returns a limiter; `retryAfterS` (whole seconds, at least 1) is when the next request may run
 */
export function createRateLimiter(limitPerMinute: number): RateLimiter {
  const refillPerMs = limitPerMinute / 60_000;
  const buckets = new Map<string, { tokens: number; at: number }>();

  function refill(bucket: { tokens: number; at: number }, now: number): void {
    // The wall clock may step back (NTP); time running backwards must not drain a bucket.
    if (now <= bucket.at) return;
    bucket.tokens = Math.min(limitPerMinute, bucket.tokens + (now - bucket.at) * refillPerMs);
    bucket.at = now;
  }

  return (client, now) => {
    if (buckets.size > MAX_TRACKED_CLIENTS) {
      for (const [key, bucket] of buckets) {
        refill(bucket, now);
        if (bucket.tokens >= limitPerMinute) buckets.delete(key);
      }
    }
    let bucket = buckets.get(client);
    if (bucket === undefined) {
      bucket = { tokens: limitPerMinute, at: now };
      buckets.set(client, bucket);
    }
    refill(bucket, now);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return { allowed: true };
    }
    return { allowed: false, retryAfterS: Math.max(1, Math.ceil((1 - bucket.tokens) / refillPerMs / 1000)) };
  };
}
