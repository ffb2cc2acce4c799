import { describe, expect, it } from 'vitest';
import { namesOtherGrader } from './grading-companies.ts';

describe('namesOtherGrader', () => {
  it("takes another grader's mark as a word or glued to GRADING as the OCR reads it (h250)", () => {
    for (const line of ['KSA', 'GMA GRADING', 'GMAGRADING', 'ZGAGRADING', 'GMAGRADINGLLC']) expect(namesOtherGrader(line), line).toBe(true);
  });
  it("takes no word that ends in GRADING, nor the seven's own marks so written, nor a mark inside another word (h255)", () => {
    for (const line of ['UPGRADING', 'REGRADING', 'PRE-GRADING', 'THIS A GRADING', 'BCCGGRADING', 'TAGGRADING', 'PSA GRADING', 'PIKACHU']) expect(namesOtherGrader(line), line).toBe(false);
  });
});
