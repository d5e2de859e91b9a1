/** The trace a browser or proxy might have started before calling the gateway. */
export const FOREIGN_TRACE_ID = '0af7651916cd43dd8448eb211c80319c';
export const FOREIGN_SPAN_ID = 'b7ad6b7169203331';
