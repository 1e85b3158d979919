// A `.wasm` import is a compiled WebAssembly.Module in workerd (wrangler's CompiledWasm module rule, the vitest
// plugin, and the esbuild bundles' copy loader).
declare module "*.wasm" {
  const module: WebAssembly.Module;
  export default module;
}
