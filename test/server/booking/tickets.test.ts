import { describe, expect, it } from 'vitest';
import { barcodeValue, qrCodeDataUrl, ticketPdf } from '../../../server/booking/tickets.ts';

const TICKET = {
  bookingId: 'bkg_0123456789abcdef',
  partnerReference: 'ORDER (42) \\ Zürich',
  title: 'Gleitschirm-Tandemflug über dem Lauterbrunnental mit Landung in Interlaken und Foto-Paket',
  date: '2026-11-22',
  startTime: '09:00',
  quantity: 2,
  holder: 'Zoë Ćosić',
  barcode: '1234567890123456',
};

/** Checks the PDF's skeleton: header, objects where the xref says, stream length, trailer. */
function checkPdfStructure(pdf: Buffer): string {
  const text = pdf.toString('latin1');
  expect(text.startsWith('%PDF-1.4\n')).toBe(true);
  expect(text.endsWith('%%EOF\n')).toBe(true);
  const startxref = Number(/startxref\n(\d+)\n%%EOF\n$/.exec(text)?.[1]);
  expect(text.slice(startxref, startxref + 5)).toBe('xref\n');
  const [, count] = /^xref\n0 (\d+)\n/.exec(text.slice(startxref))!;
  const entries = text.slice(startxref).split('\n').slice(2, 2 + Number(count));
  expect(entries[0]).toBe('0000000000 65535 f ');
  entries.slice(1).forEach((entry, index) => {
    expect(entry).toMatch(/^\d{10} 00000 n $/);
    const offset = Number(entry.slice(0, 10));
    const object = `${index + 1} 0 obj\n<<`;
    expect(text.slice(offset, offset + object.length)).toBe(object);
  });
  const stream = /<< \/Length (\d+) >>\nstream\n/.exec(text)!;
  const start = stream.index + stream[0].length;
  expect(text.slice(start + Number(stream[1]), start + Number(stream[1]) + 10)).toBe('\nendstream');
  expect(text).toContain(`trailer\n<< /Size ${count} /Root 1 0 R >>`);
  return text;
}

describe('ticketPdf', () => {
  it('writes a one-page PDF whose cross-reference table points at every object', () => {
    const text = checkPdfStructure(ticketPdf(TICKET));
    expect(text).toContain('/Type /Pages /Kids [3 0 R] /Count 1');
    expect(text).toContain('(Code: 1234567890123456)');
  });

  it('escapes parentheses and backslashes, keeps Latin-1 and writes other letters as ?', () => {
    const text = ticketPdf(TICKET).toString('latin1');
    expect(text).toContain('(Booking reference: ORDER \\(42\\) \\\\ Zürich)');
    expect(text).toContain('(Name: Zoë ?osi?)');
  });

  it('wraps a long title onto at most three lines', () => {
    const lines = [...ticketPdf(TICKET).toString('latin1').matchAll(/\/F1 18 Tf \d+ \d+ Td \(([^)]*)\)/g)].map((match) => match[1]);
    expect(lines).toEqual(['Gleitschirm-Tandemflug über dem', 'Lauterbrunnental mit Landung in', 'Interlaken und Foto-Paket']);
  });

  it('draws the QR code as filled squares', () => {
    const text = ticketPdf(TICKET).toString('latin1');
    expect(text).toMatch(/q 0 0 0 rg\n(\S+ \S+ \S+ \S+ re\n)+f Q/);
  });
});

describe('barcodeValue and qrCodeDataUrl', () => {
  it('give an item the same 16 digits every time, and another item other digits', () => {
    expect(barcodeValue('itm_1')).toMatch(/^\d{16}$/);
    expect(barcodeValue('itm_1')).toBe(barcodeValue('itm_1'));
    expect(barcodeValue('itm_2')).not.toBe(barcodeValue('itm_1'));
  });

  it('render the code as a 256-pixel PNG', async () => {
    const url = await qrCodeDataUrl('1234567890123456');
    const png = Buffer.from(url.replace('data:image/png;base64,', ''), 'base64');
    expect(png.subarray(1, 4).toString()).toBe('PNG');
    expect([png.readUInt32BE(16), png.readUInt32BE(20)]).toEqual([256, 256]);
  });
});
