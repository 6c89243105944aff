/**
 * Where the sandbox serves a ticket's files: `/v1/tickets/{ticketId}/pdf` (application/pdf) and
 * `/v1/tickets/{ticketId}/qr_code` (image/png), linked from the booking. The partner links its
 * own tickets, so in proxy mode these paths are not served.
 */

/** The files of a ticket and their media types. */
export const TICKET_FILE_TYPES = { pdf: 'application/pdf', qr_code: 'image/png' } as const;

export type TicketFileKind = keyof typeof TICKET_FILE_TYPES;

/** A ticket id: `tkt_` and the 16 hex digits of its booking item's id. */
export const TICKET_ID_PATTERN = 'tkt_[0-9a-f]{16}';

/** The OpenAPI path template of a ticket file. */
export function ticketFileTemplate(kind: TicketFileKind): string {
  return `/v1/tickets/{ticketId}/${kind}`;
}

/** The path of one ticket file, e.g. `/v1/tickets/tkt_3f9a0c2e1b7d4a65/pdf`. */
export function ticketFilePath(ticketId: string, kind: TicketFileKind): string {
  return `/v1/tickets/${ticketId}/${kind}`;
}

const PATH = new RegExp(`^/v1/tickets/(${TICKET_ID_PATTERN})/(${Object.keys(TICKET_FILE_TYPES).join('|')})$`);

/** Reads a request path as a ticket file's; null when it is none. */
export function matchTicketFilePath(pathname: string): { ticketId: string; kind: TicketFileKind } | null {
  const match = PATH.exec(pathname);
  return match === null ? null : { ticketId: match[1]!, kind: match[2] as TicketFileKind };
}
