export { CONSOLE_CSP } from './console-csp';
export { consoleRouter, type ConsoleRouterOptions } from './console-router';
