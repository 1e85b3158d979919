export function measure(entry: string, options: { withDependencies: boolean }): Promise<{ min: number; gzip: number }>;
