// All input goes through here: the OpenAPIHono factory whose validation hook throws the table's reasons,
// and the JSON-body guard that separates wrong content types and unparsable JSON from schema failures.
import { type Hook, OpenAPIHono } from "@hono/zod-openapi";
import type { Env, MiddlewareHandler } from "hono";
import type { ZodError } from "zod";
import { AppError, type Reason } from "./errors";
import { checkIJson } from "./http/i-json";

const TARGET_REASON: Record<string, Reason> = {
  json: "invalid_body",
  query: "invalid_query",
  param: "invalid_id",
};

/** One line per issue, `path: message`, for the `detail` field. */
export function formatIssues(error: ZodError): string {
  return error.issues
    .slice(0, 5)
    .map((issue) => `${issue.path.length ? issue.path.join(".") : "(root)"}: ${issue.message}`)
    .join("; ");
}

// biome-ignore lint/suspicious/noExplicitAny: the hook is shared by every route, whatever its schemas.
function validationHook<E extends Env>(): Hook<any, E, any, any> {
  return (result) => {
    if (!result.success) {
      throw new AppError(TARGET_REASON[result.target] ?? "bad_request", { detail: formatIssues(result.error) });
    }
  };
}

/** A Hono sub-app whose zod-validated routes feed the OpenAPI description (one source of truth). */
export function routeGroup<E extends Env>(): OpenAPIHono<E> {
  return new OpenAPIHono<E>({ defaultHook: validationHook<E>() });
}

const JSON_MEDIA = /^application\/([\w.-]+\+)?json$/i;

/**
 * Routes with a JSON body run this first: a body that is not declared as JSON is refused (never parsed as JSON,
 * so a cross-site text/plain form post cannot smuggle one), unparsable JSON is `malformed_json`, and a body that is
 * not I-JSON (a repeated name, a lone surrogate: i-json.ts) is refused with its own reason, for every route.
 */
export const jsonBody: MiddlewareHandler = async (c, next) => {
  const mediaType = (c.req.header("content-type") ?? "").split(";")[0]?.trim() ?? "";
  if (!JSON_MEDIA.test(mediaType)) {
    throw new AppError("unsupported_media_type", { detail: "send Content-Type: application/json" });
  }
  const text = await c.req.text();
  try {
    JSON.parse(text);
  } catch {
    throw new AppError("malformed_json");
  }
  const checked = checkIJson(text);
  if (!checked.ok) throw new AppError(checked.reason, { detail: checked.detail });
  await next();
};

/**
 * For routes whose body is optional: no body at all (no Content-Type, nothing sent) passes untouched; anything
 * sent is held to the same rules as `jsonBody`.
 */
export const optionalJsonBody: MiddlewareHandler = async (c, next) => {
  const declared = c.req.header("content-type") !== undefined;
  const length = c.req.header("content-length");
  if (!declared && (length === undefined || length === "0") && (await c.req.text()) === "") return next();
  return jsonBody(c, next);
};
