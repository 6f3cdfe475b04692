// Cards drawn as SVG: no image is fetched, and nothing depends on a font holding suit symbols.
// A card travels as its text ("SQ", "C10", "H2"); this file turns that text into a picture.
"use strict";

const CardArt = (() => {
  const SUITS = { C: "clubs", D: "diamonds", H: "hearts", S: "spades" };
  const SYMBOLS = { C: "♣", D: "♦", H: "♥", S: "♠" };
  // Suit shapes in a 100 x 100 box.
  const SHAPES = {
    H: '<path d="M50 90C22 66 4 50 4 30C4 15 16 5 30 5C40 5 47 11 50 19C53 11 60 5 70 5C84 5 96 15 96 30C96 50 78 66 50 90Z"/>',
    D: '<path d="M50 3L88 50L50 97L12 50Z"/>',
    S: '<path d="M50 4C36 24 8 38 8 60C8 74 19 82 31 82C39 82 45 78 48 73C47 84 42 92 33 96H67C58 92 53 84 52 73C55 78 61 82 69 82C81 82 92 74 92 60C92 38 64 24 50 4Z"/>',
    C: '<circle cx="50" cy="27" r="19"/><circle cx="27" cy="57" r="19"/><circle cx="73" cy="57" r="19"/>' +
       '<path d="M46 55C46 76 42 88 33 96H67C58 88 54 76 54 55Z"/>',
  };
  const SPECIAL = { SQ: "pig", DJ: "sheep", C10: "transformer" };

  function parse(text) {
    return { suit: text[0], rank: text.slice(1) };
  }

  function isRed(suit) {
    return suit === "H" || suit === "D";
  }

  function label(text) {
    const { suit, rank } = parse(text);
    return SYMBOLS[suit] + rank;
  }

  function suitIcon(suit, x, y, size) {
    return `<svg x="${x}" y="${y}" width="${size}" height="${size}" viewBox="0 0 100 100">${SHAPES[suit]}</svg>`;
  }

  // The picture of one card, as an SVG string (60 x 84 units; CSS sets its size).
  function face(text) {
    const { suit, rank } = parse(text);
    const colour = isRed(suit) ? "#c0262d" : "#1d1d1f";
    const special = SPECIAL[text];
    const mark = special ? `<title>${label(text)} (the ${special})</title>` : `<title>${label(text)}</title>`;
    const rankSize = rank.length > 1 ? 17 : 20;
    return `<svg class="card-svg" viewBox="0 0 60 84" role="img" aria-label="${label(text)}" fill="${colour}">${mark}` +
      `<rect x="1" y="1" width="58" height="82" rx="6" fill="#fffdf8" stroke="#9a958a" stroke-width="1.2"/>` +
      (special ? `<rect x="3.5" y="3.5" width="53" height="77" rx="4.5" fill="none" stroke="${colour}" stroke-width="0.9" stroke-dasharray="3 2"/>` : "") +
      `<text x="6" y="${rank.length > 1 ? 20 : 22}" font-family="DejaVu Sans, Liberation Sans, Arial, sans-serif" font-weight="700" font-size="${rankSize}" letter-spacing="${rank.length > 1 ? -1.5 : 0}">${rank}</text>` +
      suitIcon(suit, 6, 26, 13) +
      suitIcon(suit, 22, 44, 30) +
      `</svg>`;
  }

  // A card back, for the cards an opponent still holds.
  function back() {
    return `<svg class="card-svg" viewBox="0 0 60 84" aria-hidden="true">` +
      `<rect x="1" y="1" width="58" height="82" rx="6" fill="#2e5d8a" stroke="#1b3a57" stroke-width="1.2"/>` +
      `<rect x="6" y="6" width="48" height="72" rx="3" fill="none" stroke="#9cc3e6" stroke-width="1.5"/>` +
      `<path d="M12 14L48 70M48 14L12 70" stroke="#9cc3e6" stroke-width="1" opacity=".6"/></svg>`;
  }

  return { face, back, label, isRed, SUITS, SYMBOLS };
})();
