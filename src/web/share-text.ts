/**
 * The share page's fixed text in the episode's language (the stored output's `language`, from its
 * transcript). English, French, German, Spanish, Italian, Portuguese and Dutch have their words here;
 * another language, or an output from before languages were recorded, gets English.
 */
import { baseLanguage } from "../pipeline/language/rules.ts";

export interface ShareText {
  lang: string;
  untitled: string;
  sharedWithYou: string;
  ready: (clips: number) => string;
  download: (what: string) => string;
  captions: string;
  trailer: string;
  downloadTrailer: string;
  notReviewed: string;
  approve: string;
  reject: string;
  approved: string;
  rejected: string;
  forEditor: string;
  forEditorNote: string;
}

const EN: ShareText = {
  lang: "en",
  untitled: "Episode clips",
  sharedWithYou: "Shared with you",
  ready: (n) => `${n} clips ready to post. Play them here or download them.`,
  download: (w) => `Download ${w}`,
  captions: "Captions",
  trailer: "Trailer",
  downloadTrailer: "Download trailer",
  notReviewed: "Not reviewed yet.",
  approve: "Approve",
  reject: "Reject",
  approved: "Approved",
  rejected: "Rejected",
  forEditor: "For your editor",
  forEditorNote: "The transcript, chapters for your podcast feed, and a timeline with the clips as ranges of the episode.",
};

const TEXT: Record<string, ShareText> = {
  en: EN,
  fr: {
    lang: "fr",
    untitled: "Extraits de l'épisode",
    sharedWithYou: "Partagé avec vous",
    ready: (n) => `${n} extraits prêts à publier. Regardez-les ici ou téléchargez-les.`,
    download: (w) => `Télécharger ${w}`,
    captions: "Sous-titres",
    trailer: "Bande-annonce",
    downloadTrailer: "Télécharger la bande-annonce",
    notReviewed: "Pas encore relu.",
    approve: "Approuver",
    reject: "Refuser",
    approved: "Approuvé",
    rejected: "Refusé",
    forEditor: "Pour votre monteur",
    forEditorNote: "La transcription, les chapitres pour votre flux de podcast et une timeline avec les extraits comme plages de l'épisode.",
  },
  de: {
    lang: "de",
    untitled: "Clips der Folge",
    sharedWithYou: "Mit Ihnen geteilt",
    ready: (n) => `${n} Clips bereit zum Posten. Hier abspielen oder herunterladen.`,
    download: (w) => `${w} herunterladen`,
    captions: "Untertitel",
    trailer: "Trailer",
    downloadTrailer: "Trailer herunterladen",
    notReviewed: "Noch nicht geprüft.",
    approve: "Freigeben",
    reject: "Ablehnen",
    approved: "Freigegeben",
    rejected: "Abgelehnt",
    forEditor: "Für den Schnitt",
    forEditorNote: "Das Transkript, Kapitel für Ihren Podcast-Feed und eine Timeline mit den Clips als Abschnitte der Folge.",
  },
  es: {
    lang: "es",
    untitled: "Clips del episodio",
    sharedWithYou: "Compartido contigo",
    ready: (n) => `${n} clips listos para publicar. Reprodúcelos aquí o descárgalos.`,
    download: (w) => `Descargar ${w}`,
    captions: "Subtítulos",
    trailer: "Tráiler",
    downloadTrailer: "Descargar tráiler",
    notReviewed: "Aún sin revisar.",
    approve: "Aprobar",
    reject: "Rechazar",
    approved: "Aprobado",
    rejected: "Rechazado",
    forEditor: "Para tu editor",
    forEditorNote: "La transcripción, capítulos para tu feed de pódcast y una línea de tiempo con los clips como tramos del episodio.",
  },
  it: {
    lang: "it",
    untitled: "Clip dell'episodio",
    sharedWithYou: "Condiviso con te",
    ready: (n) => `${n} clip pronte da pubblicare. Guardale qui o scaricale.`,
    download: (w) => `Scarica ${w}`,
    captions: "Sottotitoli",
    trailer: "Trailer",
    downloadTrailer: "Scarica il trailer",
    notReviewed: "Non ancora revisionata.",
    approve: "Approva",
    reject: "Rifiuta",
    approved: "Approvata",
    rejected: "Rifiutata",
    forEditor: "Per il montaggio",
    forEditorNote: "La trascrizione, i capitoli per il feed del podcast e una timeline con le clip come tratti dell'episodio.",
  },
  pt: {
    lang: "pt",
    untitled: "Clipes do episódio",
    sharedWithYou: "Partilhado consigo",
    ready: (n) => `${n} clipes prontos para publicar. Veja-os aqui ou descarregue-os.`,
    download: (w) => `Descarregar ${w}`,
    captions: "Legendas",
    trailer: "Trailer",
    downloadTrailer: "Descarregar trailer",
    notReviewed: "Ainda não revisto.",
    approve: "Aprovar",
    reject: "Rejeitar",
    approved: "Aprovado",
    rejected: "Rejeitado",
    forEditor: "Para o seu editor",
    forEditorNote: "A transcrição, capítulos para o feed do podcast e uma linha do tempo com os clipes como trechos do episódio.",
  },
  nl: {
    lang: "nl",
    untitled: "Clips van de aflevering",
    sharedWithYou: "Met je gedeeld",
    ready: (n) => `${n} clips klaar om te posten. Speel ze hier af of download ze.`,
    download: (w) => `${w} downloaden`,
    captions: "Ondertitels",
    trailer: "Trailer",
    downloadTrailer: "Trailer downloaden",
    notReviewed: "Nog niet beoordeeld.",
    approve: "Goedkeuren",
    reject: "Afwijzen",
    approved: "Goedgekeurd",
    rejected: "Afgewezen",
    forEditor: "Voor je editor",
    forEditorNote: "Het transcript, hoofdstukken voor je podcastfeed en een tijdlijn met de clips als delen van de aflevering.",
  },
};

export function shareText(language: string | undefined): ShareText {
  return TEXT[baseLanguage(language)] ?? EN;
}
