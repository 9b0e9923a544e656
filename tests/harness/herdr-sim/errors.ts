// A failed request: herdr answers `{"id":…,"error":{"code","message"}}` with resource-specific
// codes (protocol doc 10.6). `replyId` overrides the id for probe failures (`<id>:sub:<n>:probe`).
export class ApiError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly replyId?: string,
  ) {
    super(message)
  }
}

export const paneNotFound = (id: string): ApiError => new ApiError('pane_not_found', `pane ${id} not found`)
export const tabNotFound = (id: string): ApiError => new ApiError('tab_not_found', `tab ${id} not found`)
export const workspaceNotFound = (id: string): ApiError => new ApiError('workspace_not_found', `workspace ${id} not found`)
export const agentNotFound = (target: string): ApiError => new ApiError('agent_not_found', `agent target ${target} not found`)
export const invalidRequest = (detail: string): ApiError => new ApiError('invalid_request', `invalid request: ${detail}`)
