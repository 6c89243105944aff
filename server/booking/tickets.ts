/**
 * Sandbox tickets: a bar-code value, a QR-code PNG of it, and a one-page PDF (pdf-lib,
 * https://pdf-lib.js.org) with the QR code drawn as vector squares. Rendering costs milliseconds
 * per ticket, so the sandbox renders a ticket when its file is first asked for and keeps it
 * (sandbox/ticketFileCache.ts); a booking only links its tickets' files.
 */

import { createHash } from 'node:crypto';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { fill, PDFDocument, type PDFFont, popGraphicsState, pushGraphicsState, rectangle, rgb, setFillingColor, StandardFonts } from 'pdf-lib';
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
  /** When the booking was paid, ms since the epoch: the PDF's creation date, so the same ticket is always the same bytes. */
  readonly issuedAt: number;
}

/** Bar-code symbology the ticket's {@link barcodeValue} is meant for (Code 128 encodes digits compactly). */
export const BARCODE_FORMAT = 'CODE128';

/** A4 portrait, in points. */
const PAGE_WIDTH = 595;
const PAGE_HEIGHT = 842;
const MARGIN = 56;
/** Width of the QR code on the page, in points. */
const QR_WIDTH_PT = 150;

/**
 * The bar-code value of a booking item: 16 decimal digits derived from its id (sha256), so the
 * same item always has the same code and codes of different items differ in practice.
 */
export function barcodeValue(bookingItemId: string): string {
  const digest = createHash('sha256').update(`ticket:${bookingItemId}`).digest();
  return (digest.readBigUInt64BE(0) % 10n ** 16n).toString().padStart(16, '0');
}

/**
 * The PNG options qrcode passes on to pngjs (https://github.com/pngjs/pngjs#options), whose
 * filtering runs on the event loop: greyscale (colour type 0), since a QR code has two colours,
 * gives it a quarter of the bytes of RGBA to filter, and a smaller file. qrcode's typings list
 * only the deflate options, which stay pngjs's defaults.
 */
const GREYSCALE_PNG = { deflateLevel: 9, colorType: 0 };

/** A QR code of `value` as a greyscale PNG image, 256 px wide. */
export function qrCodePng(value: string): Promise<Buffer> {
  // A copy per call: qrcode writes the image's size into the options it is given.
  return QRCode.toBuffer(value, { type: 'png', errorCorrectionLevel: 'M', margin: 2, width: 256, rendererOpts: { ...GREYSCALE_PNG } });
}

/**
 * The one-page PDF ticket, the same bytes for the same content. Characters the standard fonts
 * cannot show (outside WinAnsi) are written as `?`.
 */
export async function ticketPdf(ticket: TicketContent): Promise<Buffer> {
  // No metadata of pdf-lib's own: it would stamp the current time and make every render differ.
  const pdf = await PDFDocument.create({ updateMetadata: false });
  const issued = new Date(ticket.issuedAt);
  pdf.setTitle(`Ticket ${ticket.barcode}`);
  pdf.setCreationDate(issued);
  pdf.setModificationDate(issued);
  const bold = await pdf.embedFont(StandardFonts.HelveticaBold);
  const regular = await pdf.embedFont(StandardFonts.Helvetica);
  const page = pdf.addPage([PAGE_WIDTH, PAGE_HEIGHT]);

  const lines: { font: PDFFont; size: number; text: string }[] = [
    ...wrap(ticket.title, 40).map((text) => ({ font: bold, size: 18, text })),
    { font: regular, size: 12, text: `Date: ${ticket.date}, ${ticket.startTime} (Europe/Zurich)` },
    { font: regular, size: 12, text: `Participants: ${ticket.quantity}` },
    { font: regular, size: 12, text: `Name: ${ticket.holder}` },
    { font: regular, size: 12, text: `Booking reference: ${ticket.partnerReference}` },
    { font: regular, size: 12, text: `Booking: ${ticket.bookingId}` },
    { font: bold, size: 14, text: `Code: ${ticket.barcode}` },
    { font: regular, size: 10, text: 'SANDBOX TICKET - NOT VALID FOR ADMISSION' },
  ];
  let y = PAGE_HEIGHT - MARGIN - 18;
  for (const { font, size, text } of lines) {
    page.drawText(printable(text, font), { x: MARGIN, y, size, font });
    y -= size + 10;
  }
  // One path of all squares, filled once: a drawRectangle per square would save and restore
  // the graphics state around each of them.
  const squares = qrCodeSquares(ticket.barcode, MARGIN, y - QR_WIDTH_PT, QR_WIDTH_PT);
  page.pushOperators(pushGraphicsState(), setFillingColor(rgb(0, 0, 0)), ...squares.map((square) => rectangle(square.x, square.y, square.width, square.height)), fill(), popGraphicsState());
  return Buffer.from(await pdf.save({ useObjectStreams: false }));
}

/**
 * A ticket that takes every path of a render: a title of more than three lines (cut with "..."),
 * letters outside WinAnsi, the longest fields.
 */
const WARM_UP_TICKET: TicketContent = {
  bookingId: 'bkg_0000000000000000',
  partnerReference: 'SA-0000000000 (Zürich)',
  title: 'Gleitschirm-Tandemflug über dem Lauterbrunnental mit Landung in Interlaken, Foto-Paket und Transfer ab Bahnhof',
  date: '2026-01-01',
  startTime: '09:00',
  quantity: 12,
  holder: 'Zoë Ćosić-Müller',
  barcode: barcodeValue('itm_0000000000000000'),
  issuedAt: 0,
};

/** Renders run at start: enough for the engine to have compiled the renderers' code. */
const WARM_UP_RENDERS = 3;

/**
 * Renders a ticket and its QR code a few times, each after a turn of the event loop, and throws
 * them away. The first renders in a process also decode the standard fonts' metrics, load the
 * PNG encoder and compile the renderers' code, several times the cost of a later one; doing it
 * at start, before the booking interface is ready, keeps those pauses off the clients' requests.
 */
export async function warmUpTicketRendering(): Promise<void> {
  for (let render = 0; render < WARM_UP_RENDERS; render++) {
    await nextTurn();
    await ticketPdf(WARM_UP_TICKET);
    await qrCodePng(WARM_UP_TICKET.barcode);
  }
}

/** The dark modules of the QR code of `value`, `width` points wide, lower-left corner at x, y: one rectangle per run in a row. */
function qrCodeSquares(value: string, x: number, y: number, width: number): { x: number; y: number; width: number; height: number }[] {
  const { size, data } = QRCode.create(value, { errorCorrectionLevel: 'M' }).modules;
  const module = width / size;
  const squares: { x: number; y: number; width: number; height: number }[] = [];
  for (let row = 0; row < size; row++) {
    let col = 0;
    while (col < size) {
      if (!data[row * size + col]) {
        col++;
        continue;
      }
      const start = col;
      while (col < size && data[row * size + col]) col++;
      squares.push({ x: x + start * module, y: y + (size - row - 1) * module, width: (col - start) * module, height: module });
    }
  }
  return squares;
}

const characterSets = new WeakMap<PDFFont, Set<number>>();

/** The text with every character the font cannot encode replaced by `?`. */
function printable(text: string, font: PDFFont): string {
  let supported = characterSets.get(font);
  if (supported === undefined) characterSets.set(font, (supported = new Set(font.getCharacterSet())));
  let out = '';
  for (const char of text) out += supported.has(char.codePointAt(0)!) ? char : '?';
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
