// Requests a project's rate limits refused (issue 30), counted without a write per refusal: an isolate adds them up
// per (project, hour, bucket) and the first refusal of a key schedules one write of the sum a moment later, in that
// request's waitUntil. So a flood of refused requests costs at most one D1 write per key per FLUSH_MS per isolate;
// what an isolate that is evicted inside that moment had counted is lost (a dashboard figure, not a bill).
import type { Db } from "../../../../shared/db/client";
import { errorFields } from "../../../../shared/http/request-line";
import { logEvent } from "../../../../shared/http/request-log";
import { type RefusalBucket, refusalStatement } from "./store";
import { hourOf } from "./windows";

export const FLUSH_MS = 250;

const pending = new Map<string, number>();

export function noteRefusal(
  ctx: Pick<ExecutionContext, "waitUntil">,
  db: Db,
  projectId: string,
  bucket: RefusalBucket,
  now = Date.now(),
): void {
  const hour = hourOf(now);
  const key = `${projectId}|${hour}|${bucket}`;
  const counted = pending.get(key);
  pending.set(key, (counted ?? 0) + 1);
  if (counted !== undefined) return; // a write of this key is already scheduled
  const flush = async () => {
    await new Promise((resolve) => setTimeout(resolve, FLUSH_MS));
    const n = pending.get(key) ?? 0;
    pending.delete(key);
    try {
      await refusalStatement(db, projectId, hour, bucket, n).run();
    } catch (err) {
      logEvent(undefined, "refusal_count_lost", { project_id: projectId, refused: n, ...errorFields(err) }, "error");
    }
  };
  ctx.waitUntil(flush());
}
