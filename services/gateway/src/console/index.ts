export { CONSOLE_CSP, consoleRouter, type ConsoleRouterOptions } from './console-router';
