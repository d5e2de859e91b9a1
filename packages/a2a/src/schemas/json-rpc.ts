import { z } from 'zod';

/** A JSON-RPC id: echoed with the same type (the SDK client compares with `!==`). */
export const jsonRpcIdSchema = z.union([z.string(), z.number(), z.null()]);
export type JsonRpcId = z.infer<typeof jsonRpcIdSchema>;

/** A JSON-RPC 2.0 request. */
export const jsonRpcRequestSchema = z.object({
  jsonrpc: z.literal('2.0'),
  id: jsonRpcIdSchema.optional(),
  method: z.string().min(1),
  params: z.unknown().optional(),
});
export type JsonRpcRequest = z.infer<typeof jsonRpcRequestSchema>;

/** `google.rpc.ErrorInfo` as a ProtoJSON `Any`: the v1.0 `error.data` entries. */
export const errorInfoSchema = z.object({
  '@type': z.literal('type.googleapis.com/google.rpc.ErrorInfo'),
  reason: z.string(),
  domain: z.string(),
  metadata: z.record(z.string(), z.string()).optional(),
});
export type ErrorInfo = z.infer<typeof errorInfoSchema>;

/** The `error` member of a JSON-RPC error response. v1.0 puts `ErrorInfo`s in `data`. */
export const jsonRpcErrorSchema = z.object({
  code: z.number().int(),
  message: z.string(),
  data: z.unknown().optional(),
});
export type JsonRpcError = z.infer<typeof jsonRpcErrorSchema>;

/** A successful JSON-RPC 2.0 response. */
export const jsonRpcSuccessResponseSchema = z.object({
  jsonrpc: z.literal('2.0'),
  id: jsonRpcIdSchema,
  result: z.unknown(),
});
export type JsonRpcSuccessResponse = z.infer<typeof jsonRpcSuccessResponseSchema>;

/** A failed JSON-RPC 2.0 response. */
export const jsonRpcErrorResponseSchema = z.object({
  jsonrpc: z.literal('2.0'),
  id: jsonRpcIdSchema,
  error: jsonRpcErrorSchema,
});
export type JsonRpcErrorResponse = z.infer<typeof jsonRpcErrorResponseSchema>;

/** Either JSON-RPC 2.0 response (an `error` member wins). */
export const jsonRpcResponseSchema = z.union([
  jsonRpcErrorResponseSchema,
  jsonRpcSuccessResponseSchema,
]);
export type JsonRpcResponse = z.infer<typeof jsonRpcResponseSchema>;
