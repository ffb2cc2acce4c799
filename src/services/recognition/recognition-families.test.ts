import { describe, expect, it } from 'vitest';
import { hintProblem, pathGameOfHints, showsPlayerAndTeam } from './recognition-families.ts';

const card = (players: string[], teams: string[]) => ({ name: players.join(' / '), fields: { players, teams } });

describe('showsPlayerAndTeam (a sport front read whole, h316)', () => {
  it('takes the player on a line of his own and his team by its last word on another', () => {
    expect(showsPlayerAndTeam(['MARCUS STROMAN', 'CUBS · PITCHER'], [card(['Marcus Stroman'], ['Chicago Cubs'])])).toBe(true);
    expect(showsPlayerAndTeam(['MARCUS STROMAN', 'PITCHER'], [card(['Marcus Stroman'], ['Chicago Cubs'])])).toBe(false);
    // the team on the player's own line is not another line
    expect(showsPlayerAndTeam(['MARCUS STROMAN CUBS'], [card(['Marcus Stroman'], ['Chicago Cubs'])])).toBe(false);
  });

  it('reads a nickname with digits or a hyphen whole, and a club by the word before its FC', () => {
    // `49ERS` was read as the word `ers`, never the checklist's `49ers`: no 49ers' or Sixers' front was a card
    expect(showsPlayerAndTeam(['BROCK PURDY', 'SAN FRANCISCO 49ERS'], [card(['Brock Purdy'], ['San Francisco 49ers'])])).toBe(true);
    expect(showsPlayerAndTeam(['JOEL EMBIID', '76ERS'], [card(['Joel Embiid'], ['Philadelphia 76ers'])])).toBe(true);
    expect(showsPlayerAndTeam(['KYLIAN MBAPPE', 'PARIS SAINT-GERMAIN'], [card(['Kylian Mbappé'], ['Paris Saint-Germain'])])).toBe(true);
    // `FC` is too short to be a team's word: the club's name before it is
    expect(showsPlayerAndTeam(['MOHAMED SALAH', 'LIVERPOOL'], [card(['Mohamed Salah'], ['Liverpool FC'])])).toBe(true);
    expect(showsPlayerAndTeam(['LIONEL MESSI', 'INTER MIAMI'], [card(['Lionel Messi'], ['Inter Miami CF'])])).toBe(true);
    // and a word that merely holds the nickname is not it
    expect(showsPlayerAndTeam(['BROCK PURDY', 'ERS'], [card(['Brock Purdy'], ['San Francisco 49ers'])])).toBe(false);
  });

  it('takes a one-word player of four letters or fewer only as a line of that word alone, and only as a player of the checklist', () => {
    // Pelé, Kaká and Nani were never seen: a name of under five letters never counted (h322)
    expect(showsPlayerAndTeam(['PELÉ', 'SANTOS'], [card(['Pelé'], ['Santos FC'])])).toBe(true);
    expect(showsPlayerAndTeam(['KAKA', 'AC MILAN'], [card(['Kaká'], ['AC Milan'])])).toBe(true);
    expect(showsPlayerAndTeam(['Nani', 'MANCHESTER UNITED'], [card(['Nani'.normalize('NFD')], ['Manchester United'])])).toBe(true);
    // the name inside a longer word, spaced or glued to another, or beside another word on its line: not his
    for (const line of ['KAKAS', "KAKÁ'S", 'KA KA', 'KA-KA', 'KAKA 22', 'RICARDO KAKA']) expect(showsPlayerAndTeam([line, 'AC MILAN'], [card(['Kaká'], ['AC Milan'])]), line).toBe(false);
    // a common four-letter word on a front is no player's name: a checklist card named by it (a team card, an insert)
    // with no player, and a two-word player of four letters, are not taken
    expect(showsPlayerAndTeam(['TEAM', 'CHICAGO CUBS'], [{ name: 'Team', fields: { teams: ['Chicago Cubs'] } }])).toBe(false);
    expect(showsPlayerAndTeam(['GOLD', 'CUBS'], [card(['Bo Li'], ['Chicago Cubs']), card(['Marcus Stroman'], ['Chicago Cubs'])])).toBe(false);
    expect(showsPlayerAndTeam(['BOLI', 'CUBS'], [card(['Bo Li'], ['Chicago Cubs'])])).toBe(false);
    // two letters are no name to take on a front's word alone
    expect(showsPlayerAndTeam(['ED', 'CUBS'], [card(['Ed'], ['Chicago Cubs'])])).toBe(false);
    // and the team must still be read on another line
    expect(showsPlayerAndTeam(['KAKA', 'PITCHER'], [card(['Kaká'], ['AC Milan'])])).toBe(false);
  });
});

describe('pathGameOfHints and the Alphabet hint (h333)', () => {
  it('takes a game a category path names, never free text that names none', () => {
    expect(pathGameOfHints({ Category: 'Trading Card Game/Dragon Ball' })).toBe('Dragon Ball');
    expect(pathGameOfHints({ Subcategory: ' tcg / One Piece / Romance Dawn' })).toBe('One Piece');
    for (const Category of ['Trading Card Game', 'TCG', 'card', 'Dragon Ball', 'Trading Card Game/Other', 'Trading Card Game/ ', 'Sport Card/Basketball', 'Trading Card Game/TCG']) expect(pathGameOfHints({ Category }), Category).toBeUndefined();
  });

  it('holds an Alphabet hint to the words of its tag, any case; a blank one says nothing', () => {
    for (const Alphabet of ['latin', 'Other', ' LATIN ', ' ']) expect(hintProblem({ Alphabet }), Alphabet).toBeUndefined();
    expect(hintProblem({ Alphabet: 'japanese' })).toEqual({ field: 'Alphabet', message: 'Alphabet must be "latin" or "other" (the words of the Alphabet tag), not "japanese"' });
  });
});
