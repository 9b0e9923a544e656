import { HTTPError } from 'h3'
import type { ErrorStyle } from './plugin.ts'

/**
 * Responses with explicit content types: clients decode JSON only when the header says so,
 * and error bodies are one line, never a stack trace.
 */
export function json(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json; charset=utf-8', ...headers } })
}

export function text(body: string, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(body, { status, headers: { 'content-type': 'text/plain; charset=utf-8', ...headers } })
}

/** An error the handler means to send: h3's HTTPError, sent as a one-line message in the route's style. */
export class HttpError extends HTTPError {
  constructor(status: number, message: string, headers: Record<string, string> = {}) {
    super({ status, message, headers })
  }
}

export function fail(status: number, message: string, headers?: Record<string, string>): never {
  throw new HttpError(status, message, headers)
}

/** Clients show error bodies of up to 400 characters; longer ones (echoed input) are cut. */
const MAX_ERROR = 400

/** An error message as clients receive it: its first line, cut at 400 characters. */
export function errorLine(message: string): string {
  const first = message.split('\n')[0]
  return first.length > MAX_ERROR ? first.slice(0, MAX_ERROR - 1) + '…' : first
}

export function errorResponse(status: number, message: string, style: ErrorStyle = 'text', headers: Record<string, string> = {}): Response {
  const line = errorLine(message)
  return style === 'json' ? json({ error: line }, status, headers) : text(line, status, headers)
}

export const unauthorized = () => text('unauthorized', 401)
