// The relay adapter: NIP-01 REQ over WebSocket to every configured relay at once (NOSTR_RELAYS; DECISIONS 20).
// Each relay gets its own time budget; a relay that is down or slow is reported, and the call fails only when
// no relay answered at all.

/** How long one relay may take to send its stored events and EOSE. */
export const RELAY_TIMEOUT_MS = 4_000;
/** Events kept per relay per query, whatever the relay sends. */
export const MAX_EVENTS_PER_RELAY = 200;

/** A NIP-01 event as a relay sends it. */
export interface NostrEvent {
  id: string;
  pubkey: string;
  created_at: number;
  kind: number;
  tags: string[][];
  content: string;
  sig: string;
}

export type NostrFilter = { kinds?: number[]; limit?: number } & { [tag: `#${string}`]: string[] };

export interface RelayAnswer {
  events: NostrEvent[];
  answered: string[];
  failed: { relay: string; error: string }[];
}

export class RelayError extends Error {
  override name = "RelayError";
}

export function parseRelayList(value: string | undefined): string[] {
  return (value ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter((s) => /^wss?:\/\/[^\s]+$/.test(s));
}

function isEvent(value: unknown): value is NostrEvent {
  const e = value as Record<string, unknown> | null;
  return (
    typeof e === "object" &&
    e !== null &&
    typeof e.id === "string" &&
    typeof e.kind === "number" &&
    typeof e.content === "string" &&
    Array.isArray(e.tags) &&
    e.tags.every((t) => Array.isArray(t) && t.every((v) => typeof v === "string"))
  );
}

/** One relay: connect, REQ, collect EVENTs until EOSE, close. */
async function queryRelay(relay: string, filters: NostrFilter[], timeoutMs: number): Promise<NostrEvent[]> {
  const httpUrl = relay.replace(/^ws/, "http");
  const res = await fetch(httpUrl, { headers: { Upgrade: "websocket" } });
  const socket = res.webSocket;
  if (!socket) throw new RelayError(`no WebSocket (HTTP ${res.status})`);
  socket.accept();
  const subscription = `oc_${crypto.randomUUID().slice(0, 8)}`;
  return new Promise<NostrEvent[]>((resolve, reject) => {
    const events: NostrEvent[] = [];
    const finish = (error?: Error) => {
      clearTimeout(timer);
      try {
        socket.close(1000, "done");
      } catch {}
      if (error) reject(error);
      else resolve(events);
    };
    const timer = setTimeout(() => finish(new RelayError("timed out before EOSE")), timeoutMs);
    socket.addEventListener("message", (message) => {
      let frame: unknown;
      try {
        frame = JSON.parse(typeof message.data === "string" ? message.data : "");
      } catch {
        return;
      }
      if (!Array.isArray(frame) || frame[1] !== subscription) return;
      if (frame[0] === "EVENT" && isEvent(frame[2]) && events.length < MAX_EVENTS_PER_RELAY) events.push(frame[2]);
      if (frame[0] === "EOSE") finish();
      if (frame[0] === "CLOSED") finish(new RelayError(`subscription closed: ${String(frame[2] ?? "")}`));
    });
    socket.addEventListener("close", () => finish(new RelayError("closed before EOSE")));
    socket.addEventListener("error", () => finish(new RelayError("socket error")));
    socket.send(JSON.stringify(["REQ", subscription, ...filters]));
  });
}

/** The whole exchange (connect included) gets one budget; a late answer is dropped. */
function withTimeout<T>(work: Promise<T>, timeoutMs: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new RelayError("timed out")), timeoutMs);
  });
  work.catch(() => {}); // a rejection after the deadline is expected and already reported as the timeout
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

export async function queryRelays(
  relays: readonly string[],
  filters: NostrFilter[],
  timeoutMs = RELAY_TIMEOUT_MS,
): Promise<RelayAnswer> {
  const settled = await Promise.allSettled(
    relays.map((relay) => withTimeout(queryRelay(relay, filters, timeoutMs), timeoutMs)),
  );
  const answer: RelayAnswer = { events: [], answered: [], failed: [] };
  settled.forEach((result, i) => {
    const relay = relays[i] as string;
    if (result.status === "fulfilled") {
      answer.answered.push(relay);
      answer.events.push(...result.value);
    } else {
      answer.failed.push({
        relay,
        error: result.reason instanceof Error ? result.reason.message : String(result.reason),
      });
    }
  });
  return answer;
}
