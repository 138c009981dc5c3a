import type { SeedInput } from './seed/schema.js';

/**
 * The demo data `notevox sandbox start` loads without --seed: one organization that exercises every key
 * type, sharing level, source type, template owner, word-memory scope and wiki state. Everything is fixed
 * (ids, guids, timestamps, text), so tests and docs can refer to it. Keys and their roles: docs/sandbox-seed.md.
 */

export const DEMO_NOW = '2026-11-01T09:00:00Z';
export const DEMO_ORGANIZATION = 'org_northwind';

export const DEMO_WORKSPACES = {
  /** Voice jobs enabled, wiki plan, wiki activated. */
  product: 'wsProductTeam001',
  /** Wiki plan but not activated; voice jobs disabled. */
  sales: 'wsSalesTeam00002',
  /** No wiki plan; a finite minutes quota. */
  support: 'wsSupportDesk003',
} as const;

export const DEMO_USERS = {
  /** Organization admin; OWNER of product, ADMIN of sales, MEMBER of support. */
  dana: 101,
  /** Workspace ADMIN of product; MEMBER of sales. */
  marco: 102,
  /** MEMBER of product and sales. */
  priya: 103,
  /** MEMBER of product and support; no membership in sales. */
  tom: 104,
  /** OWNER of sales, ADMIN of support; not in product. */
  lena: 105,
} as const;

const demoKey = (id: string, secret: string) => ({ id, secret, token: `${id}.${secret}` }) as const;
/** The seed fields of a demo key. */
const creds = (k: { id: string; secret: string }) => ({ id: k.id, secret: k.secret });

/** The notable demo keys by role. `token` is the whole bearer value `{id}.{secret}`. Public demo values. */
export const DEMO_KEYS = {
  admin: demoKey('nvk_user_admin', 'sk_demo_user_admin_0001'),
  wsAdmin: demoKey('nvk_user_wsadmin', 'sk_demo_user_wsadmin_0001'),
  member: demoKey('nvk_user_member', 'sk_demo_user_member_0001'),
  noteReadOnly: demoKey('nvk_user_note_read', 'sk_demo_user_note_read_0001'),
  boundUser: demoKey('nvk_user_bound_product', 'sk_demo_user_bound_0001'),
  workspaceKey: demoKey('nvk_ws_product', 'sk_demo_ws_product_0001'),
  salesWorkspaceKey: demoKey('nvk_ws_sales', 'sk_demo_ws_sales_0001'),
  unboundWorkspaceKey: demoKey('nvk_ws_unbound', 'sk_demo_ws_unbound_0001'),
  legacyScopeWorkspaceKey: demoKey('nvk_ws_product_legacy', 'sk_demo_ws_legacy_scope_0001'),
  noVoiceWorkspaceKey: demoKey('nvk_ws_support_novoice', 'sk_demo_ws_novoice_0001'),
  orgKey: demoKey('nvk_org_integration', 'sk_demo_org_integration_0001'),
  orgReadOnly: demoKey('nvk_org_readonly', 'sk_demo_org_readonly_0001'),
  expired: demoKey('nvk_user_expired', 'sk_demo_user_expired_0001'),
  inactive: demoKey('nvk_user_inactive', 'sk_demo_user_inactive_0001'),
  deleted: demoKey('nvk_user_deleted', 'sk_demo_user_deleted_0001'),
  legacyPersonal: demoKey('nvk_legacy_personal', 'sk_demo_legacy_personal_0001'),
} as const;

export const DEMO_FOLDERS = {
  roadmap: 11, planning2027: 12, q1Launch: 13, launchAssets: 14, pressKit: 15, designReviews: 16,
  danasDrafts: 17, customerInterviews: 18, leadershipSync: 19, tomsScratchpad: 20,
  customerCalls: 21, dealDesk: 22, escalations: 31, supportPlaybooks: 32,
} as const;

export const DEMO_NOTES = {
  launchKickoff: 'nt1LaunchPlan', roadmapReview: 'nt2RoadmapRev', designCritique: 'nt3DesignCrit', harborInterview: 'nt4HarborIntv',
  oneOnOnePrep: 'nt5OneOnePrep', leadershipSync: 'nt6Leadership', competitorTeardown: 'nt7Competitor', welcome: 'nt8WelcomeNvx',
  warehouseWalkthrough: 'nt9Warehouse1', pipelineReview: 'ntAPipelineQ4', pricingException: 'ntBPricingExc', androidEscalation: 'ntCEscalation',
  supportStandup: 'ntDStandupSup', deletedBrainstorm: 'ntEOldBrainst', sprintRetro: 'ntFSprintRetr', pressBriefing: 'ntGPressBrief',
} as const;

export const DEMO_TEMPLATES = {
  onePager: 1, meetingMinutes: 2, salesCall: 3, interviewDebrief: 10, designReview: 20, escalationReport: 21, customerCallReport: 30,
} as const;

export const DEMO_WIKI_PAGES = {
  harborFreight: 'wp_harbor_freight', q1Launch: 'wp_q1_launch', offlineSync: 'wp_offline_sync', onboardingV3: 'wp_onboarding_v3',
  marco: 'wp_marco_reyes', loomly: 'wp_loomly', enterprisePipeline: 'wp_enterprise_pipeline',
} as const;

/** The page with more mentions than one wiki page of results holds (some from notes in private folders). */
export const DEMO_BUSY_PAGE = { guid: DEMO_WIKI_PAGES.harborFreight, mentions: 250 } as const;

const { product, sales, support } = DEMO_WORKSPACES;
const { dana, marco, priya, tom, lena } = DEMO_USERS;
const F = DEMO_FOLDERS;
const N = DEMO_NOTES;
const T = DEMO_TEMPLATES;
const W = DEMO_WIKI_PAGES;

// ---------------------------------------------------------------- transcript text

/** Sentence bank; {topic} and {term} are filled per note. Paragraphs pick sentences by arithmetic, not chance. */
const SENTENCES = [
  "Let's start with where we are on {topic}.",
  'The main risk I see is that {term} slips past the end of the month.',
  'I talked to the team yesterday and {term} is mostly unblocked now.',
  'Can we agree that {topic} is the priority for the next two weeks?',
  'We still need real numbers on {term} before we commit to a date.',
  'From the customer side, {term} came up in almost every conversation.',
  "I'd rather ship a smaller version of {topic} than miss the window.",
  'Action item: write up the open questions on {term} and share them by Friday.',
  'The data from last quarter shows that {term} is where most of the time goes.',
  "I'm not convinced {term} needs its own workstream; it could fold into {topic}.",
  "Good point. Let's park {term} and revisit it in the next sync.",
  'For {topic}, the dependency on {term} is the critical path.',
  'Support tickets mentioning {term} doubled since the last release.',
  'We agreed to review {topic} again once the pilot results are in.',
  'Who owns {term} at the moment? I want one name next to it.',
  'The design team has a prototype for {term} that we can test this week.',
  'Budget for {topic} is approved, but hiring for {term} is still open.',
  'Let me share my screen and walk through {term} quickly.',
  'If we cut {term}, we save roughly two sprints on {topic}.',
  'Legal asked for a review of {term} before anything goes external.',
  "I'll follow up with the account team about {term} this afternoon.",
  'That matches what we heard in the interviews about {topic}.',
  'Make sure the notes on {term} end up in the shared folder.',
  'To wrap up: {topic} stays on track, and {term} needs an owner by Monday.',
];

interface TranscriptSpec {
  count: number;
  topic: string;
  terms: string[];
  /** Speakers in turn; none for typed notes. */
  speakers?: string[];
  /** Shifts the sentence choice so notes do not read alike. */
  variant: number;
}

function transcript(spec: TranscriptSpec) {
  const sentence = (k: number, term: string) => SENTENCES[k % SENTENCES.length].replaceAll('{topic}', spec.topic).replaceAll('{term}', term);
  return Array.from({ length: spec.count }, (_, k) => {
    const v = spec.variant;
    const term = (j: number) => spec.terms[(k + j) % spec.terms.length];
    const parts = [sentence(k * 5 + v, term(0)), sentence(k * 7 + v + 3, term(1))];
    if ((k + v) % 3 === 0) parts.push(sentence(k * 11 + v + 7, term(2)));
    return { speaker: spec.speakers ? spec.speakers[k % spec.speakers.length] : null, text: parts.join(' ') };
  });
}

const at = (day: string, time: string) => `2026-${day}T${time}:00Z`;

// ---------------------------------------------------------------- notes

const launchParagraphs = transcript({
  count: 32, variant: 0, topic: 'the Q1 launch',
  terms: ['Harbor Freight Logistics', 'offline sync', 'the pricing page', 'onboarding flow v3', 'the press kit'],
  speakers: ['Marco Reyes', 'Dana Whitfield', 'Priya Natarajan', 'Tom Okafor'],
});

/** A document section longer than the deep-search budget (LIMITS.deepSearchDocumentChars). */
const launchDiscussionLog = ['## Discussion log', ...launchParagraphs.map((p) => `**${p.speaker}:** ${p.text}`)].join('\n\n');

type ParagraphSeed = NonNullable<NonNullable<SeedInput['notes']>[number]['paragraphs']>[number];

/**
 * The design critique shows the paragraph fields real clients read (decisions.md §3.2): paragraph 3 is split
 * between two speakers (Marco, tagged, and an untagged SPEAKER_2), paragraphs 1 and 3 have a paragraph summary,
 * and the last paragraph is locked (hidden by the plan: no text).
 */
const critiqueParagraphs: ParagraphSeed[] = transcript({
  count: 18, variant: 9, topic: 'onboarding flow v3', terms: ['the empty state', 'the invite step', 'the progress bar'], speakers: ['Marco Reyes', 'Sam Ortiz'],
}).map((p, k): ParagraphSeed => {
  if (k === 0) return { ...p, summary: 'Marco opens the critique of onboarding flow v3.' };
  if (k === 2) {
    const [first, ...rest] = p.text.match(/[^.!?]+[.!?]+/g)!.map((x) => x.trim());
    return {
      ...p,
      diarizedSegments: [
        { content: first, speaker: { label: 'SPEAKER_1', personName: 'Marco Reyes' } },
        { content: rest.join(' '), speaker: { label: 'SPEAKER_2', personName: null } },
      ],
      summary: { type: 'text/markdown', content: 'Marco and an untagged speaker discuss **the progress bar**.' },
    };
  }
  if (k === 17) return { speaker: p.speaker, locked: true };
  return p;
});

const notes: SeedInput['notes'] = [
  {
    guid: N.launchKickoff, id: 40101, title: 'Q1 2027 launch plan kickoff', ownerUserId: marco, folderId: F.q1Launch, sourceType: 'live-voice',
    createdAt: at('10-27', '14:00'), recording: { startAt: at('10-27', '14:00'), transcribeLocale: 'en_US', translateLocale: 'ko_KR' },
    participants: [
      { name: 'Marco Reyes', email: 'marco.reyes@northwind.example' }, { name: 'Dana Whitfield', email: 'dana.whitfield@northwind.example' },
      { name: 'Priya Natarajan', email: 'priya.natarajan@northwind.example' }, { name: 'Tom Okafor', email: 'tom.okafor@northwind.example' },
    ],
    collaborators: [{ userId: dana, role: 'EDITOR' }, { userId: priya, role: 'VIEWER' }],
    paragraphs: launchParagraphs,
    summaries: [
      {
        locale: 'en_US', createdAt: at('10-27', '15:10'),
        content: '## Summary\n\nThe team set the Q1 launch scope: offline sync ships, the pricing page is redesigned, onboarding flow v3 goes to beta.\n\n## Action items\n\n- Marco: owner list for every workstream by Monday\n- Priya: open questions on offline sync by Friday\n- Tom: press kit draft',
      },
      {
        templateId: T.onePager, locale: 'ko_KR', createdAt: at('10-27', '15:20'),
        content: '## 요약\n\n팀은 1분기 출시 범위를 확정했습니다: 오프라인 동기화 출시, 가격 페이지 개편, 온보딩 v3 베타.\n\n## 할 일\n\n- Marco: 월요일까지 담당자 목록\n- Priya: 금요일까지 오프라인 동기화 질문 정리',
      },
    ],
    documents: [
      {
        templateId: T.onePager, locale: 'ko_KR', createdAt: at('10-27', '15:30'),
        sections: ['## 개요\n\n1분기 출시 계획 킥오프.', '## 결정 사항\n\n- 오프라인 동기화 포함\n- 가격 페이지 개편', '## 다음 단계\n\n- 담당자 지정'],
      },
      {
        templateId: T.onePager, locale: 'en_US', createdAt: at('10-28', '09:00'),
        sections: [
          '## Overview\n\nKickoff of the Q1 2027 launch: scope, owners and risks.',
          '## Key points\n\n- Offline sync is the critical path\n- Harbor Freight Logistics is the reference customer\n- The press kit depends on the final pricing page',
          '## Decisions\n\n- Ship offline sync in Q1\n- Onboarding flow v3 goes to beta first',
          '## Next steps\n\n- Owner list by Monday\n- Open questions on offline sync by Friday',
        ],
      },
      {
        templateId: T.meetingMinutes, locale: 'en_US', createdAt: at('10-28', '09:30'),
        sections: ['## Attendees\n\nMarco Reyes, Dana Whitfield, Priya Natarajan, Tom Okafor', '## Agenda\n\n1. Scope\n2. Owners\n3. Risks', launchDiscussionLog, '## Action items\n\n- [ ] Owner list (Marco)\n- [ ] Offline sync questions (Priya)\n- [ ] Press kit draft (Tom)'],
      },
    ],
    shareLink: { shareId: 'shLaunchKickoff2027', password: 'demo-share-password', createdAt: at('10-28', '10:00') },
  },
  {
    guid: N.roadmapReview, id: 40102, title: 'Roadmap review: mobile offline sync', ownerUserId: dana, folderId: F.roadmap, sourceType: 'recording',
    createdAt: at('10-20', '10:00'), recording: { startAt: at('10-20', '10:00'), transcribeLocale: 'en_US' },
    participants: [{ name: 'Dana Whitfield', email: 'dana.whitfield@northwind.example' }, { name: 'Priya Natarajan', email: 'priya.natarajan@northwind.example' }],
    paragraphs: transcript({ count: 24, variant: 4, topic: 'mobile offline sync', terms: ['conflict resolution', 'Harbor Freight Logistics', 'battery usage', 'the Android client'], speakers: ['Dana Whitfield', 'Priya Natarajan'] }),
    summaries: [{ locale: 'en_US', content: '## Summary\n\nOffline sync is feasible for Q1 if conflict resolution stays last-writer-wins. Battery usage needs a test on older Android devices.' }],
  },
  {
    guid: N.designCritique, id: 40103, title: 'Design critique: onboarding flow v3', ownerUserId: marco, folderId: F.designReviews, sourceType: 'video',
    createdAt: at('10-22', '16:00'), recording: { startAt: at('10-22', '16:00'), transcribeLocale: 'en_US' },
    participants: [{ name: 'Marco Reyes', email: 'marco.reyes@northwind.example' }, { name: 'Sam Ortiz', email: null }],
    paragraphs: critiqueParagraphs,
    documents: [{ templateId: T.designReview, locale: 'en_US', sections: ['## Proposal\n\nThree-step onboarding with an invite step.', '## Feedback\n\n- The empty state needs an example note\n- The progress bar reads as a loading bar', '## Decision\n\nShip to beta with the revised progress bar.'] }],
    shareLink: {},
  },
  {
    guid: N.harborInterview, id: 40104, title: 'Customer interview: Harbor Freight Logistics', ownerUserId: dana, folderId: F.customerInterviews, sourceType: 'recording',
    createdAt: at('10-15', '13:00'), recording: { startAt: at('10-15', '13:00'), transcribeLocale: 'en_US' },
    participants: [{ name: 'Dana Whitfield', email: 'dana.whitfield@northwind.example' }, { name: 'Alex Kim', email: 'alex.kim@harborfreight.example' }, { name: 'Jordan Lee', email: null }],
    paragraphs: transcript({ count: 28, variant: 2, topic: 'the Harbor Freight Logistics rollout', terms: ['Harbor Freight Logistics', 'driver check-ins', 'offline sync', 'dispatch notes'], speakers: ['Dana Whitfield', 'Alex Kim', 'Jordan Lee'] }),
    summaries: [{ locale: 'en_US', content: '## Summary\n\nHarbor Freight Logistics needs offline sync for driver check-ins in low-coverage depots. Dispatch notes are their biggest time sink.' }],
    documents: [{ templateId: T.interviewDebrief, locale: 'en_US', sections: ['## Context\n\nRenewal interview with the dispatch team.', '## Pain points\n\n- No coverage in depots\n- Dispatch notes typed twice', '## Quotes\n\n> "If it works offline, we roll it out to every depot."', '## Follow-ups\n\n- Share the offline sync beta timeline'] }],
  },
  {
    guid: N.oneOnOnePrep, id: 40105, title: '1:1 prep with Marco', ownerUserId: dana, folderId: F.danasDrafts, sourceType: 'text', createdAt: at('10-29', '08:30'),
    paragraphs: transcript({ count: 6, variant: 5, topic: "Marco's growth plan", terms: ['the Q1 launch', 'Harbor Freight Logistics', 'hiring'] }),
  },
  {
    guid: N.leadershipSync, id: 40106, title: 'Leadership sync: 2027 hiring plan', ownerUserId: dana, folderId: F.leadershipSync, sourceType: 'live-voice',
    createdAt: at('10-23', '09:00'), recording: { startAt: at('10-23', '09:00'), transcribeLocale: 'en_US' },
    participants: [{ name: 'Dana Whitfield', email: 'dana.whitfield@northwind.example' }, { name: 'Marco Reyes', email: 'marco.reyes@northwind.example' }],
    collaborators: [{ userId: marco, role: 'EDITOR' }],
    paragraphs: transcript({ count: 20, variant: 7, topic: 'the 2027 hiring plan', terms: ['two senior engineers', 'a support lead', 'the relocation budget'], speakers: ['Dana Whitfield', 'Marco Reyes'] }),
  },
  {
    guid: N.competitorTeardown, id: 40107, title: 'Competitor teardown: Loomly pricing page', ownerUserId: priya, workspaceGuid: product, sourceType: 'webpage', createdAt: at('10-18', '11:00'),
    paragraphs: transcript({ count: 9, variant: 11, topic: "Loomly's pricing", terms: ['Loomly', 'the team tier', 'usage-based pricing'] }),
  },
  {
    guid: N.welcome, id: 40108, title: 'Welcome to Notevox', ownerUserId: tom, sourceType: 'onboarding', createdAt: '2026-03-02T08:00:00Z',
    paragraphs: transcript({ count: 5, variant: 13, topic: 'getting started with Notevox', terms: ['recording a meeting', 'folders', 'templates'] }),
  },
  {
    guid: N.warehouseWalkthrough, id: 40109, title: 'Field recording: warehouse walkthrough', ownerUserId: tom, folderId: F.tomsScratchpad, sourceType: 'offline-mode',
    createdAt: at('10-16', '07:30'), recording: { startAt: at('10-16', '07:30'), transcribeLocale: 'en_US' },
    paragraphs: transcript({ count: 12, variant: 3, topic: 'the depot workflow', terms: ['Harbor Freight Logistics', 'the loading dock', 'scanner handoff'], speakers: ['Tom Okafor'] }),
  },
  {
    guid: N.pipelineReview, id: 40110, title: 'Q4 enterprise pipeline review', ownerUserId: lena, folderId: F.customerCalls, sourceType: 'live-voice',
    createdAt: at('10-24', '15:00'), recording: { startAt: at('10-24', '15:00'), transcribeLocale: 'en_US' },
    participants: [{ name: 'Lena Vogel', email: 'lena.vogel@northwind.example' }, { name: 'Priya Natarajan', email: 'priya.natarajan@northwind.example' }],
    paragraphs: transcript({ count: 26, variant: 6, topic: 'the Q4 enterprise pipeline', terms: ['the Harbor Freight renewal', 'procurement', 'the security review', 'multi-year terms'], speakers: ['Lena Vogel', 'Priya Natarajan'] }),
    summaries: [{ locale: 'en_US', content: '## Summary\n\nFour enterprise deals are in procurement; the Harbor Freight renewal waits on the security review.' }],
    documents: [{ templateId: T.customerCallReport, locale: 'en_US', sections: ['## Account\n\nEnterprise pipeline, Q4.', '## Needs\n\n- Security review answers\n- Multi-year terms', '## Risks\n\n- Procurement delays', '## Next steps\n\n- Send the security questionnaire'] }],
  },
  {
    guid: N.pricingException, id: 40111, title: 'Pricing exception: Harbor Freight renewal', ownerUserId: lena, folderId: F.dealDesk, sourceType: 'text', createdAt: at('10-25', '10:00'),
    paragraphs: transcript({ count: 7, variant: 8, topic: 'the renewal discount', terms: ['the Harbor Freight renewal', 'a 15% discount', 'a three-year term'] }),
  },
  {
    guid: N.androidEscalation, id: 40112, title: 'Escalation: sync failures on Android 15', ownerUserId: tom, folderId: F.escalations, sourceType: 'recording',
    createdAt: at('10-21', '17:00'), recording: { startAt: at('10-21', '17:00'), transcribeLocale: 'en_US', translateLocale: 'ja_JP' },
    participants: [{ name: 'Tom Okafor', email: 'tom.okafor@northwind.example' }, { name: 'Lena Vogel', email: 'lena.vogel@northwind.example' }],
    paragraphs: transcript({ count: 16, variant: 10, topic: 'the Android 15 sync failures', terms: ['background restrictions', 'the retry queue', 'crash reports'], speakers: ['Tom Okafor', 'Lena Vogel'] }),
    summaries: [{ locale: 'en_US', content: '## Summary\n\nAndroid 15 background restrictions stop the retry queue. A hotfix moves sync to a foreground service.' }],
    documents: [{ templateId: T.escalationReport, locale: 'en_US', sections: ['## Impact\n\n12% of Android sessions fail to sync.', '## Timeline\n\nStarted with the October OS update.', '## Root cause\n\nBackground restrictions.', '## Remediation\n\nForeground service in the hotfix.'] }],
  },
  {
    guid: N.supportStandup, id: 40113, title: 'Weekly support standup', ownerUserId: lena, workspaceGuid: support, sourceType: 'live-voice',
    createdAt: at('10-30', '09:00'), recording: { startAt: at('10-30', '09:00'), transcribeLocale: 'en_US' },
    participants: [{ name: 'Lena Vogel', email: 'lena.vogel@northwind.example' }, { name: 'Tom Okafor', email: 'tom.okafor@northwind.example' }],
    paragraphs: transcript({ count: 14, variant: 12, topic: 'the support queue', terms: ['first response time', 'the Android escalation', 'macros'], speakers: ['Lena Vogel', 'Tom Okafor'] }),
  },
  {
    guid: N.deletedBrainstorm, id: 40114, title: 'Old brainstorm: team offsite ideas', ownerUserId: dana, folderId: F.roadmap, sourceType: 'text', createdAt: '2026-06-10T12:00:00Z', deleted: true,
    paragraphs: transcript({ count: 5, variant: 14, topic: 'the team offsite', terms: ['a venue', 'the agenda', 'travel'] }),
  },
  {
    guid: N.sprintRetro, id: 40115, title: 'Sprint 42 retro: platform team', ownerUserId: priya, folderId: F.planning2027, sourceType: 'live-voice',
    createdAt: at('10-31', '16:00'), recording: { startAt: at('10-31', '16:00'), transcribeLocale: 'en_US' },
    participants: [{ name: 'Priya Natarajan', email: 'priya.natarajan@northwind.example' }, { name: 'Tom Okafor', email: 'tom.okafor@northwind.example' }, { name: 'Marco Reyes', email: 'marco.reyes@northwind.example' }],
    paragraphs: transcript({ count: 22, variant: 1, topic: 'sprint 42', terms: ['flaky tests', 'offline sync', 'the deploy pipeline', 'on-call load'], speakers: ['Priya Natarajan', 'Tom Okafor', 'Marco Reyes'] }),
  },
  {
    guid: N.pressBriefing, id: 40116, title: 'Press briefing prep', ownerUserId: marco, folderId: F.pressKit, sourceType: 'recording',
    createdAt: at('10-30', '13:00'), recording: { startAt: at('10-30', '13:00'), transcribeLocale: 'en_US' },
    paragraphs: transcript({ count: 10, variant: 15, topic: 'the launch announcement', terms: ['the press kit', 'customer quotes', 'embargo timing'], speakers: ['Marco Reyes'] }),
  },
];

// ---------------------------------------------------------------- the seed

export const demoSeed: SeedInput = {
  now: DEMO_NOW,
  organizations: [{ id: DEMO_ORGANIZATION, name: 'Northwind Labs', createdAt: '2024-01-15T09:00:00Z' }],
  workspaces: [
    { guid: product, organizationId: DEMO_ORGANIZATION, name: 'Product Team', createdAt: '2024-02-01T09:00:00Z', voiceFileEnabled: true, wikiPlan: true, wikiEnabled: true, quota: { monthlyMinutes: null, usedMinutes: 1840 } },
    { guid: sales, organizationId: DEMO_ORGANIZATION, name: 'Sales', createdAt: '2024-05-12T09:00:00Z', voiceFileEnabled: false, wikiPlan: true, wikiEnabled: false },
    { guid: support, organizationId: DEMO_ORGANIZATION, name: 'Customer Support', createdAt: '2025-01-20T09:00:00Z', voiceFileEnabled: true, wikiPlan: false, quota: { monthlyMinutes: 600, usedMinutes: 412 } },
  ],
  users: [
    { id: dana, name: 'Dana Whitfield', email: 'dana.whitfield@northwind.example', organizationId: DEMO_ORGANIZATION, orgAdmin: true, memberships: [{ workspaceGuid: product, role: 'OWNER' }, { workspaceGuid: sales, role: 'ADMIN' }, { workspaceGuid: support, role: 'MEMBER' }] },
    { id: marco, name: 'Marco Reyes', email: 'marco.reyes@northwind.example', organizationId: DEMO_ORGANIZATION, memberships: [{ workspaceGuid: product, role: 'ADMIN' }, { workspaceGuid: sales }] },
    { id: priya, name: 'Priya Natarajan', email: 'priya.natarajan@northwind.example', organizationId: DEMO_ORGANIZATION, memberships: [{ workspaceGuid: product }, { workspaceGuid: sales }] },
    { id: tom, name: 'Tom Okafor', email: 'tom.okafor@northwind.example', organizationId: DEMO_ORGANIZATION, memberships: [{ workspaceGuid: product }, { workspaceGuid: support }] },
    { id: lena, name: 'Lena Vogel', email: 'lena.vogel@northwind.example', organizationId: DEMO_ORGANIZATION, memberships: [{ workspaceGuid: sales, role: 'OWNER' }, { workspaceGuid: support, role: 'ADMIN' }] },
  ],
  apiKeys: [
    { ...creds(DEMO_KEYS.admin), type: 'USER', userId: dana, label: 'Dana (org admin): account key, no scopes = every API', createdAt: '2026-01-10T09:00:00Z' },
    { ...creds(DEMO_KEYS.wsAdmin), type: 'USER', userId: marco, label: 'Marco (product workspace admin): account key', createdAt: '2026-02-03T09:00:00Z' },
    { ...creds(DEMO_KEYS.member), type: 'USER', userId: priya, label: 'Priya (member): account key', createdAt: '2026-02-04T09:00:00Z' },
    { ...creds(DEMO_KEYS.noteReadOnly), type: 'USER', userId: tom, scopes: ['note:read'], label: 'Tom (member): scoped to note:read only', createdAt: '2026-03-01T09:00:00Z' },
    { ...creds(DEMO_KEYS.boundUser), type: 'USER', userId: priya, workspaceGuid: product, label: 'Priya: account key created for the Product Team workspace only', createdAt: '2026-03-02T09:00:00Z' },
    { ...creds(DEMO_KEYS.workspaceKey), type: 'WORKSPACE', workspaceGuid: product, label: 'Product Team workspace system key', createdAt: '2026-04-01T09:00:00Z' },
    { ...creds(DEMO_KEYS.salesWorkspaceKey), type: 'WORKSPACE', workspaceGuid: sales, label: 'Sales workspace system key (voice jobs disabled, wiki not activated)', createdAt: '2026-04-02T09:00:00Z' },
    { ...creds(DEMO_KEYS.unboundWorkspaceKey), type: 'WORKSPACE', organizationId: DEMO_ORGANIZATION, label: 'Workspace system key not yet bound to a workspace (401004)', createdAt: '2026-04-03T09:00:00Z' },
    { ...creds(DEMO_KEYS.legacyScopeWorkspaceKey), type: 'WORKSPACE', workspaceGuid: product, legacyScope: true, label: 'Product Team workspace key from before the note read scope (sees every note)', createdAt: '2025-03-01T09:00:00Z' },
    { ...creds(DEMO_KEYS.noVoiceWorkspaceKey), type: 'WORKSPACE', workspaceGuid: support, voicePermission: false, label: 'Customer Support workspace key without the voice-file permission (403013)', createdAt: '2026-04-05T09:00:00Z' },
    {
      ...creds(DEMO_KEYS.orgKey), type: 'ORGANIZATION', organizationId: DEMO_ORGANIZATION, issuedByUserId: dana, label: 'Organization integration key (CRM sync)', createdAt: '2026-05-01T09:00:00Z', expiresAt: '2027-12-31T23:59:59Z',
      scopes: ['note:read', 'note_summary:read', 'note_document:read', 'note_document:write', 'note_document_template:read', 'folder:read', 'wiki:read', 'word_memory:write', 'workspace:write', 'voice_file_job:write'],
    },
    {
      ...creds(DEMO_KEYS.orgReadOnly), type: 'ORGANIZATION', organizationId: DEMO_ORGANIZATION, issuedByUserId: dana, label: 'Organization reporting key (read-only scopes)', createdAt: '2026-05-02T09:00:00Z',
      scopes: ['note:read', 'note_summary:read', 'note_document:read', 'folder:read', 'wiki:read', 'word_memory:read', 'workspace:read'],
    },
    { ...creds(DEMO_KEYS.expired), type: 'USER', userId: marco, status: 'expired', expiresAt: '2026-09-30T00:00:00Z', label: 'Marco: expired account key (401003)', createdAt: '2025-09-30T00:00:00Z' },
    { ...creds(DEMO_KEYS.inactive), type: 'USER', userId: priya, status: 'inactive', label: 'Priya: deactivated account key (401003)', createdAt: '2026-01-05T09:00:00Z' },
    { ...creds(DEMO_KEYS.deleted), type: 'USER', userId: tom, status: 'deleted', label: 'Tom: deleted account key (401003)', createdAt: '2026-01-06T09:00:00Z' },
    { ...creds(DEMO_KEYS.legacyPersonal), type: 'LEGACY_PERSONAL', userId: dana, label: 'Dana: legacy personal key (stops working after 2026-06-30: 401005)', createdAt: '2023-06-01T09:00:00Z' },
  ],
  folders: [
    { id: F.roadmap, workspaceGuid: product, ownerUserId: dana, title: 'Roadmap', description: 'Quarterly roadmap reviews', color: '#4A90D9', sharingType: 'ALL_MEMBER_VIEWER', createdAt: '2024-02-02T09:00:00Z' },
    { id: F.planning2027, workspaceGuid: product, ownerUserId: dana, parentId: F.roadmap, title: '2027 Planning', sharingType: 'ALL_MEMBER_EDITOR', color: '#7B61FF', createdAt: '2026-09-01T09:00:00Z' },
    { id: F.q1Launch, workspaceGuid: product, ownerUserId: marco, parentId: F.planning2027, title: 'Q1 Launch', sharingType: 'ALL_MEMBER_EDITOR', color: '#F5A623', createdAt: '2026-09-02T09:00:00Z' },
    { id: F.launchAssets, workspaceGuid: product, ownerUserId: marco, parentId: F.q1Launch, title: 'Launch Assets', sharingType: 'ALL_MEMBER_EDITOR', createdAt: '2026-09-03T09:00:00Z' },
    { id: F.pressKit, workspaceGuid: product, ownerUserId: marco, parentId: F.launchAssets, title: 'Press Kit', description: 'Deepest allowed level (depth 5)', sharingType: 'ALL_MEMBER_VIEWER', createdAt: '2026-09-04T09:00:00Z' },
    { id: F.designReviews, workspaceGuid: product, ownerUserId: marco, title: 'Design Reviews', sharingType: 'ALL_MEMBER_EDITOR', color: '#50E3C2', createdAt: '2024-03-01T09:00:00Z' },
    { id: F.danasDrafts, workspaceGuid: product, ownerUserId: dana, title: "Dana's Drafts", sharingType: 'PRIVATE', color: '#9B9B9B', createdAt: '2024-02-03T09:00:00Z' },
    { id: F.customerInterviews, workspaceGuid: product, ownerUserId: dana, parentId: F.danasDrafts, title: 'Customer Interviews', description: 'Shared with everyone, filed under a private folder', sharingType: 'ALL_MEMBER_VIEWER', createdAt: '2025-06-01T09:00:00Z' },
    {
      id: F.leadershipSync, workspaceGuid: product, ownerUserId: dana, title: 'Leadership Sync', sharingType: 'LIMITED', color: '#D0021B', createdAt: '2025-01-10T09:00:00Z',
      members: [{ userId: marco, role: 'EDITOR' }, { userId: priya, role: 'VIEWER' }],
    },
    { id: F.tomsScratchpad, workspaceGuid: product, ownerUserId: tom, title: "Tom's Scratchpad", sharingType: 'PRIVATE', createdAt: '2026-03-05T09:00:00Z' },
    { id: F.customerCalls, workspaceGuid: sales, ownerUserId: lena, title: 'Customer Calls', sharingType: 'ALL_MEMBER_VIEWER', color: '#417505', createdAt: '2024-05-13T09:00:00Z' },
    {
      id: F.dealDesk, workspaceGuid: sales, ownerUserId: lena, title: 'Deal Desk', sharingType: 'LIMITED', color: '#8B572A', createdAt: '2024-06-01T09:00:00Z',
      members: [{ userId: dana, role: 'EDITOR' }, { userId: marco, role: 'VIEWER' }],
    },
    { id: F.escalations, workspaceGuid: support, ownerUserId: tom, title: 'Escalations', sharingType: 'ALL_MEMBER_EDITOR', color: '#D0021B', createdAt: '2025-01-21T09:00:00Z' },
    { id: F.supportPlaybooks, workspaceGuid: support, ownerUserId: lena, title: 'Support Playbooks', sharingType: 'ALL_MEMBER_VIEWER', createdAt: '2025-01-22T09:00:00Z' },
  ],
  templates: [
    {
      id: T.onePager, title: 'One-pager', description: 'A one-page overview of the note', ownerType: 'MANAGED', kind: 'one_pager', createdAt: '2024-01-01T00:00:00Z',
      sections: [
        { title: 'Overview', instruction: 'Summarize the note in two or three sentences.' },
        { title: 'Key points', instruction: 'List the most important points as bullets.' },
        { title: 'Decisions', instruction: 'List the decisions that were made.' },
        { title: 'Next steps', instruction: 'List the follow-ups with their owners.' },
      ],
    },
    {
      id: T.meetingMinutes, title: 'Meeting minutes', description: 'Formal minutes', ownerType: 'MANAGED', createdAt: '2024-01-01T00:00:00Z',
      sections: [
        { title: 'Attendees', instruction: 'Who took part.' },
        { title: 'Agenda', instruction: 'The topics in order.' },
        { title: 'Discussion', instruction: 'What was said, topic by topic.' },
        { title: 'Action items', instruction: 'Tasks with owners and due dates.' },
      ],
    },
    {
      id: T.salesCall, title: 'Sales call summary', ownerType: 'MANAGED', createdAt: '2024-01-01T00:00:00Z',
      sections: [{ title: 'Customer needs', instruction: 'What the customer asked for.' }, { title: 'Objections', instruction: 'Concerns raised.' }, { title: 'Next steps', instruction: 'Agreed follow-ups.' }],
    },
    {
      id: T.interviewDebrief, title: 'Interview debrief', description: "Dana's customer interview format", ownerType: 'USER', ownerUserId: dana, createdAt: '2025-06-02T09:00:00Z',
      sections: [{ title: 'Context', instruction: 'Who, when, why.' }, { title: 'Pain points', instruction: 'Problems the customer described.' }, { title: 'Quotes', instruction: 'Verbatim quotes worth keeping.' }, { title: 'Follow-ups', instruction: 'What we promised.' }],
    },
    {
      id: T.designReview, title: 'Design review record', ownerType: 'WORKSPACE', workspaceGuid: product, createdAt: '2024-03-02T09:00:00Z',
      sections: [{ title: 'Proposal', instruction: 'What was presented.' }, { title: 'Feedback', instruction: 'Feedback by reviewer.' }, { title: 'Decision', instruction: 'Approved, changes requested or rejected.' }],
    },
    {
      id: T.escalationReport, title: 'Escalation report', ownerType: 'WORKSPACE', workspaceGuid: support, createdAt: '2025-01-23T09:00:00Z',
      sections: [{ title: 'Impact', instruction: 'Who is affected and how much.' }, { title: 'Timeline', instruction: 'What happened when.' }, { title: 'Root cause', instruction: 'Why it happened.' }, { title: 'Remediation', instruction: 'Fix and prevention.' }],
    },
    {
      id: T.customerCallReport, title: 'Customer call report', description: 'Organization-wide CRM format', ownerType: 'ORGANIZATION', organizationId: DEMO_ORGANIZATION, createdAt: '2024-04-01T09:00:00Z',
      sections: [{ title: 'Account', instruction: 'The account and contacts.' }, { title: 'Needs', instruction: 'Requirements raised.' }, { title: 'Risks', instruction: 'Deal risks.' }, { title: 'Next steps', instruction: 'Follow-ups for the CRM.' }],
    },
  ],
  notes,
  wordMemories: [
    { scope: 'user', scopeId: dana, entry: 'Whitfield', createdAt: '2026-01-11T09:00:00Z' },
    { scope: 'user', scopeId: dana, entry: 'HFL', subEntry: 'Harbor-Freight', createdAt: '2026-01-11T09:01:00Z' },
    { scope: 'user', scopeId: dana, entry: 'Lighthouse', createdAt: '2026-01-11T09:02:00Z' },
    { scope: 'user', scopeId: priya, entry: 'Natarajan', createdAt: '2026-02-05T09:00:00Z' },
    { scope: 'user', scopeId: priya, entry: 'Kubernetes', subEntry: 'k8s', createdAt: '2026-02-05T09:01:00Z' },
    { scope: 'workspace', scopeId: product, entry: 'Notevox', createdAt: '2024-02-01T10:00:00Z' },
    { scope: 'workspace', scopeId: product, entry: 'Loomly', createdAt: '2026-10-18T11:30:00Z' },
    { scope: 'workspace', scopeId: product, entry: 'OfflineSync', subEntry: 'offline-sync', createdAt: '2026-10-20T11:00:00Z' },
    { scope: 'workspace', scopeId: support, entry: 'Zendesk', createdAt: '2025-01-21T10:00:00Z' },
    { scope: 'workspace', scopeId: support, entry: 'Android', createdAt: '2025-01-21T10:01:00Z' },
    { scope: 'organization', scopeId: DEMO_ORGANIZATION, entry: 'Northwind', subEntry: 'NWL', createdAt: '2024-01-15T10:00:00Z' },
    { scope: 'organization', scopeId: DEMO_ORGANIZATION, entry: 'Harbor-Freight-Logistics', subEntry: 'HFL', createdAt: '2024-01-15T10:01:00Z' },
    { scope: 'organization', scopeId: DEMO_ORGANIZATION, entry: 'Okafor', createdAt: '2024-01-15T10:02:00Z' },
  ],
  wiki: {
    pages: [
      {
        guid: W.harborFreight, workspaceGuid: product, canonicalName: 'Harbor Freight Logistics', pageType: 'organization', createdAt: '2026-10-15T14:00:00Z', updatedAt: '2026-10-31T18:00:00Z',
        description: 'Logistics customer; reference account for offline sync.', aliases: ['Harbor Freight', 'HFL'], links: [W.q1Launch, W.offlineSync],
      },
      {
        guid: W.q1Launch, workspaceGuid: product, canonicalName: 'Q1 2027 Launch', pageType: 'project', createdAt: '2026-10-27T16:00:00Z', updatedAt: '2026-10-31T18:00:00Z',
        description: 'The Q1 2027 release: offline sync, pricing page, onboarding flow v3.', aliases: ['Q1 launch', 'Project Lighthouse'], links: [W.harborFreight, W.offlineSync, W.onboardingV3],
      },
      {
        guid: W.offlineSync, workspaceGuid: product, canonicalName: 'Offline Sync', pageType: 'feature', createdAt: '2026-10-20T12:00:00Z', updatedAt: '2026-10-31T16:00:00Z',
        description: 'Mobile offline mode with last-writer-wins conflict resolution.', aliases: ['offline mode', 'mobile offline sync'], links: [W.q1Launch],
      },
      { guid: W.onboardingV3, workspaceGuid: product, canonicalName: 'Onboarding Flow v3', pageType: 'feature', createdAt: '2026-10-22T17:00:00Z', description: 'Three-step onboarding with an invite step.', aliases: ['onboarding v3'], links: [W.q1Launch] },
      { guid: W.marco, workspaceGuid: product, canonicalName: 'Marco Reyes', pageType: 'person', createdAt: '2026-10-22T17:00:00Z', description: 'Product workspace admin; owns the Q1 launch.', aliases: ['Marco'], links: [W.q1Launch, W.onboardingV3] },
      { guid: W.loomly, workspaceGuid: product, canonicalName: 'Loomly', pageType: 'competitor', createdAt: '2026-10-18T12:00:00Z', description: 'Competitor with a team tier and usage-based pricing.' },
      { guid: W.enterprisePipeline, workspaceGuid: sales, canonicalName: 'Enterprise Pipeline', pageType: 'topic', createdAt: '2026-10-24T16:00:00Z', description: 'Exists, but the Sales wiki is not activated (403005).' },
    ],
    mentions: [
      { pageGuid: W.q1Launch, noteGuid: N.launchKickoff, paragraphIndex: 0, extractedText: 'the Q1 launch', confidence: 0.97 },
      { pageGuid: W.q1Launch, noteGuid: N.pressBriefing, paragraphIndex: 1, kind: 'IMPLICIT', extractedText: 'the launch announcement', confidence: 0.71 },
      { pageGuid: W.q1Launch, noteGuid: N.oneOnOnePrep, paragraphIndex: 2, extractedText: 'the Q1 launch', confidence: 0.9 },
      { pageGuid: W.offlineSync, noteGuid: N.roadmapReview, paragraphIndex: 0, extractedText: 'mobile offline sync', confidence: 0.98 },
      { pageGuid: W.offlineSync, noteGuid: N.sprintRetro, paragraphIndex: 3, extractedText: 'offline sync', confidence: 0.88 },
      { pageGuid: W.offlineSync, noteGuid: N.harborInterview, paragraphIndex: 4, kind: 'IMPLICIT', extractedText: 'works offline', confidence: 0.64, sourceUserId: marco },
      { pageGuid: W.onboardingV3, noteGuid: N.designCritique, paragraphIndex: 0, extractedText: 'onboarding flow v3', confidence: 0.99 },
      { pageGuid: W.marco, noteGuid: N.launchKickoff, paragraphIndex: 4, extractedText: 'Marco Reyes', confidence: 0.93 },
      { pageGuid: W.marco, noteGuid: N.leadershipSync, paragraphIndex: 1, extractedText: 'Marco Reyes', confidence: 0.91 },
      { pageGuid: W.loomly, noteGuid: N.competitorTeardown, paragraphIndex: 0, extractedText: 'Loomly', confidence: 0.99 },
      { pageGuid: W.enterprisePipeline, noteGuid: N.pipelineReview, paragraphIndex: 0, extractedText: 'the Q4 enterprise pipeline', confidence: 0.95 },
    ],
    generatedMentions: [
      // Spread over a shared folder under a private parent, shared folders, and two private folders (Dana's and Tom's).
      { pageGuid: DEMO_BUSY_PAGE.guid, count: DEMO_BUSY_PAGE.mentions, noteGuids: [N.harborInterview, N.launchKickoff, N.roadmapReview, N.oneOnOnePrep, N.warehouseWalkthrough] },
    ],
  },
};
