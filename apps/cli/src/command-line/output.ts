/** Where a command writes: its data (JSON) on stdout, messages on stderr. */
export interface Output {
  out(text: string): void;
  err(text: string): void;
}
