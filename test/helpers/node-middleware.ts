// An Express-style middleware `(req, res, next)` run against a stand-in response, as the kit's Node adapters are:
// whether it passed the request on, or what it answered instead.

interface ResponseStandIn {
  statusCode: number;
  setHeader(name: string, value: string): unknown;
  end(body?: string): unknown;
}

export interface NodeAnswer {
  statusCode: number;
  headers: Record<string, string>;
  body: string;
}

export async function runNodeMiddleware<Req>(
  middleware: (req: Req, res: ResponseStandIn, next: (err?: unknown) => void) => void,
  req: Req,
): Promise<{ next: boolean; res: NodeAnswer }> {
  const res: NodeAnswer = { statusCode: 200, headers: {}, body: "" };
  const next = await new Promise<boolean>((resolve) => {
    const response = {
      statusCode: 200,
      setHeader: (name: string, value: string) => {
        res.headers[name] = value;
      },
      end: (body?: string) => {
        res.statusCode = response.statusCode;
        res.body = body ?? "";
        resolve(false);
      },
    };
    middleware(req, response, () => resolve(true));
  });
  return { next, res };
}
