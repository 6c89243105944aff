/**
 * Sandbox tickets: a bar-code value, a QR-code image of it, and a one-page PDF written by hand
 * (PDF 1.4, ISO 32000-1: catalog, pages, page, two standard fonts, one content stream, xref),
 * with the QR code drawn as vector squares.
 */

import { createHash } from 'node:crypto';
import QRCode from 'qrcode';

/** What a ticket shows. */
export interface TicketContent {
  readonly bookingId: string;
  readonly partnerReference: string;
  readonly title: string;
  /** Local date `YYYY-MM-DD` and start `HH:MM` (Europe/Zurich). */
  readonly date: string;
  readonly startTime: string;
  readonly quantity: number;
  /** The customer's name. */
  readonly holder: string;
  /** {@link barcodeValue} of the booking item. */
  readonly barcode: string;
}

/** Bar-code symbology the ticket's {@link barcodeValue} is meant for (Code 128 encodes digits compactly). */
export const BARCODE_FORMAT = 'CODE128';

/** A4 portrait, in points. */
const PAGE_WIDTH = 595;
const PAGE_HEIGHT = 842;
const MARGIN = 56;

/**
 * The bar-code value of a booking item: 16 decimal digits derived from its id (sha256), so the
 * same item always has the same code and codes of different items differ in practice.
 */
export function barcodeValue(bookingItemId: string): string {
  const digest = createHash('sha256').update(`ticket:${bookingItemId}`).digest();
  return (digest.readBigUInt64BE(0) % 10n ** 16n).toString().padStart(16, '0');
}

/** A QR code of `value` as a PNG data URL (`data:image/png;base64,...`), 256 px wide. */
export function qrCodeDataUrl(value: string): Promise<string> {
  return QRCode.toDataURL(value, { errorCorrectionLevel: 'M', margin: 2, width: 256 });
}

/** The one-page PDF ticket. Text outside Latin-1 is written as `?` (the standard fonts have no other glyphs). */
export function ticketPdf(ticket: TicketContent): Buffer {
  const lines: { font: 'F1' | 'F2'; size: number; text: string }[] = [
    ...wrap(ticket.title, 40).map((text) => ({ font: 'F1' as const, size: 18, text })),
    { font: 'F2', size: 12, text: `Date: ${ticket.date}, ${ticket.startTime} (Europe/Zurich)` },
    { font: 'F2', size: 12, text: `Participants: ${ticket.quantity}` },
    { font: 'F2', size: 12, text: `Name: ${ticket.holder}` },
    { font: 'F2', size: 12, text: `Booking reference: ${ticket.partnerReference}` },
    { font: 'F2', size: 12, text: `Booking: ${ticket.bookingId}` },
    { font: 'F1', size: 14, text: `Code: ${ticket.barcode}` },
    { font: 'F2', size: 10, text: 'SANDBOX TICKET - NOT VALID FOR ADMISSION' },
  ];
  let y = PAGE_HEIGHT - MARGIN - 18;
  const text = lines.map(({ font, size, text }) => {
    const line = `BT /${font} ${size} Tf ${MARGIN} ${y} Td (${pdfString(text)}) Tj ET`;
    y -= size + 10;
    return line;
  });
  const content = [...qrCodeDrawing(ticket.barcode, MARGIN, y - 150, 150), ...text].join('\n');

  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 ${PAGE_WIDTH} ${PAGE_HEIGHT}] /Resources << /Font << /F1 4 0 R /F2 5 0 R >> >> /Contents 6 0 R >>`,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica-Bold /Encoding /WinAnsiEncoding >>',
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>',
    `<< /Length ${content.length} >>\nstream\n${content}\nendstream`,
  ];
  // Every character is below U+0100 and written as Latin-1, so string lengths are byte offsets.
  let pdf = '%PDF-1.4\n%\xe2\xe3\xcf\xd3\n';
  const offsets: number[] = [];
  objects.forEach((body, index) => {
    offsets.push(pdf.length);
    pdf += `${index + 1} 0 obj\n${body}\nendobj\n`;
  });
  const xref = pdf.length;
  // Each xref entry is exactly 20 bytes, its end of line being a space and a newline.
  pdf += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const offset of offsets) pdf += `${String(offset).padStart(10, '0')} 00000 n \n`;
  pdf += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(pdf, 'latin1');
}

/** Fill operators drawing the QR code of `value` as black squares, `width` points wide, lower-left corner at x, y. */
function qrCodeDrawing(value: string, x: number, y: number, width: number): string[] {
  const { size, data } = QRCode.create(value, { errorCorrectionLevel: 'M' }).modules;
  const module = width / size;
  const rects: string[] = [];
  for (let row = 0; row < size; row++) {
    // One rectangle per run of dark modules in a row keeps the stream small.
    let col = 0;
    while (col < size) {
      if (!data[row * size + col]) {
        col++;
        continue;
      }
      const start = col;
      while (col < size && data[row * size + col]) col++;
      const top = y + (size - row) * module;
      rects.push(`${round(x + start * module)} ${round(top - module)} ${round((col - start) * module)} ${round(module)} re`);
    }
  }
  return ['q 0 0 0 rg', ...rects, 'f Q'];
}

function round(value: number): string {
  return String(Math.round(value * 100) / 100);
}

/** A PDF literal string body: Latin-1 (WinAnsi's printable range), with \, ( and ) escaped. */
function pdfString(text: string): string {
  let out = '';
  for (const char of text) {
    const code = char.codePointAt(0)!;
    const printable = (code >= 0x20 && code < 0x7f) || (code >= 0xa0 && code <= 0xff);
    const safe = printable ? char : '?';
    out += safe === '\\' || safe === '(' || safe === ')' ? `\\${safe}` : safe;
  }
  return out;
}

/** Splits text into lines of at most `width` characters at spaces; at most three lines, the last cut with "...". */
function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/).filter(Boolean)) {
    if (line !== '' && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else {
      line = line === '' ? word : `${line} ${word}`;
    }
  }
  if (line !== '') lines.push(line);
  if (lines.length > 3) return [...lines.slice(0, 2), `${lines[2]!.slice(0, width - 3)}...`];
  return lines.length === 0 ? [''] : lines.map((item) => (item.length > width ? `${item.slice(0, width - 3)}...` : item));
}
