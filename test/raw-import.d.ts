// Vite's `?raw` import: a file's text as the default export (the workerd tests read service-spec.md this way).
declare module "*?raw" {
  const text: string;
  export default text;
}
