// A project's log read over HTTP (docs/log.md "Tiles"): each piece at `<fleet>/api/log/<project>/<path>` under a
// project token (`read` scope suffices). A 404 for a tile is "not served" (a partial one may be gone once its full
// tile exists); any other failure throws one line naming what could not be read.
import { kitHeaders } from "../version";
import type { LogReader } from "./pieces";

export interface HttpLogReaderOptions {
  /** The fleet's origin, e.g. https://fleet.example.com */
  fleet: string;
  /** proj_… */
  projectId: string;
  /** A project API token, ock_… */
  token?: string;
  fetch?: typeof fetch;
}

/** The `reason` and `detail` of an error answer, when it is the fleet's JSON. */
async function refusal(res: Response): Promise<string> {
  try {
    const body = (await res.json()) as { reason?: unknown; detail?: unknown };
    return [body.reason, body.detail].filter((s) => typeof s === "string").join(": ");
  } catch {
    return "";
  }
}

export function httpLogReader(options: HttpLogReaderOptions): LogReader {
  const doFetch = options.fetch ?? ((input, init) => fetch(input, init));
  const fleet = options.fleet.replace(/\/+$/, "");
  const prefix = `${fleet}/api/log/${options.projectId}/`;
  const headers = kitHeaders(options.token ? { authorization: `Bearer ${options.token}` } : {});
  return {
    async read(path) {
      const url = prefix + path;
      let res: Response;
      try {
        res = await doFetch(url, { headers });
      } catch (err) {
        const cause = (err as { cause?: { code?: unknown; message?: unknown } }).cause;
        throw new Error(
          `could not reach ${fleet} (${String(cause?.code ?? cause?.message ?? (err as Error).message)})`,
        );
      }
      // A checkpoint's 404 is the project's (unknown, or not the caller's): not a piece the log may lack.
      if (res.status === 404 && path !== "checkpoint") return undefined;
      if (!res.ok) {
        const why = await refusal(res);
        throw new Error(`GET ${url} answered ${res.status}${why ? ` ${why}` : ""}`);
      }
      return new Uint8Array(await res.arrayBuffer());
    },
  };
}
