/*
 * view_number.h - numbers for cube_view --serve's answers.
 *
 * An answer of a large call tree holds hundreds of thousands of numbers,
 * so they are written here, several times faster than printf, in
 * integers only (no extended precision, which not every machine or
 * emulator has): what %.17g writes in the C locale, whatever the locale
 * (17 significant digits, trailing zeros dropped, which read back to
 * exactly the double written), but integers below 10^19 in full; null
 * for NaN and infinities.
 */
#ifndef CUBE_VIEW_NUMBER_H
#define CUBE_VIEW_NUMBER_H

/* The longest number written: "-1.2345678901234567e-308". */
enum { VIEW_NUMBER_MAX = 24 };

/* The JSON number of v at p (at most VIEW_NUMBER_MAX bytes, no
 * terminator); returns the end. */
char *view_put_number(char *p, double v);

#endif
