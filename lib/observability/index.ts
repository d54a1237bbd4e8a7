export { consoleLogger, silentLogger, type LogLevel, type Logger } from "./logger.ts";
