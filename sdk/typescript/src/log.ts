// Where the SDK says what it does: connected to which hub as which agent, which task it resumes, a retry while the
// hub is out of disk space, the error of a handler that threw. Never a secret (credential, code, token).

export interface Logger {
  debug(message: string, ...rest: unknown[]): void;
  info(message: string, ...rest: unknown[]): void;
  warn(message: string, ...rest: unknown[]): void;
  error(message: string, ...rest: unknown[]): void;
}

const LEVELS = { debug: 10, info: 20, warn: 30, error: 40, silent: 99 } as const;
export type LogLevel = keyof typeof LEVELS;

/** Lines on standard error, `lineup-sdk: ...`, from `level` up (default: `LINEUP_SDK_LOG`, else "info"). */
export function consoleLogger(level?: LogLevel): Logger {
  const wanted = level ?? (process.env.LINEUP_SDK_LOG as LogLevel | undefined) ?? "info";
  const floor = LEVELS[wanted] ?? LEVELS.info;
  const at = (name: Exclude<LogLevel, "silent">) => (message: string, ...rest: unknown[]): void => {
    if (LEVELS[name] >= floor) console.error(`${new Date().toISOString()} lineup-sdk ${name}: ${message}`, ...rest);
  };
  return { debug: at("debug"), info: at("info"), warn: at("warn"), error: at("error") };
}

/** Nothing at all. */
export const silentLogger: Logger = { debug() {}, info() {}, warn() {}, error() {} };
