/**
 * The JSON examples of the A2A 0.3.0 specification (`docs/specification.md` at the v0.3.0 tag),
 * as objects. Where an example is not valid 0.3 (it happens), it is kept as the spec prints it
 * and the note says why: the specs check that such input is refused, naming the field.
 */

/** §9.2: `message/send` params (the message has no `kind`: the examples never write it in requests). */
export const JOKE_REQUEST = {
  message: { role: 'user', parts: [{ kind: 'text', text: 'tell me a joke' }], messageId: '9229e770-767c-417b-a0b0-f0741243c589' },
  metadata: {},
};

/** §9.2: its answer, a completed Task. */
export const JOKE_TASK = {
  id: '363422be-b0f9-4692-a24d-278670e7c7f1',
  contextId: 'c295ea44-7543-4f78-b524-7a38915ad6e4',
  status: { state: 'completed' },
  artifacts: [
    {
      artifactId: '9b6934dd-37e3-4eb1-8766-962efaab63a1',
      name: 'joke',
      parts: [{ kind: 'text', text: 'Why did the chicken cross the road? To get to the other side!' }],
    },
  ],
  history: [
    {
      role: 'user',
      parts: [{ kind: 'text', text: 'tell me a joke' }],
      messageId: '9229e770-767c-417b-a0b0-f0741243c589',
      taskId: '363422be-b0f9-4692-a24d-278670e7c7f1',
      contextId: 'c295ea44-7543-4f78-b524-7a38915ad6e4',
    },
  ],
  kind: 'task',
  metadata: {},
};

/** §9.2: the same request answered with a Message. NOTE: the example has no `role`, which 0.3 requires. */
export const JOKE_MESSAGE = {
  messageId: '363422be-b0f9-4692-a24d-278670e7c7f1',
  contextId: 'c295ea44-7543-4f78-b524-7a38915ad6e4',
  parts: [{ kind: 'text', text: 'Why did the chicken cross the road? To get to the other side!' }],
  kind: 'message',
  metadata: {},
};

/** §9.3: `message/stream` params. NOTE: the file part writes `data` where 0.3 has `bytes` (or `uri`). */
export const PAPER_REQUEST = {
  message: {
    role: 'user',
    parts: [
      { kind: 'text', text: 'write a long paper describing the attached pictures' },
      { kind: 'file', file: { mimeType: 'image/png', data: '<base64-encoded-content>' } },
    ],
    messageId: 'bbb7dee1-cf5c-4683-8a6f-4114529da5eb',
  },
  metadata: {},
};

/** §9.3: the SSE events' `result`s (the first one's file part repaired to `bytes`; timestamps without offset, as printed). */
export const PAPER_EVENTS = [
  {
    id: '225d6247-06ba-4cda-a08b-33ae35c8dcfa',
    contextId: '05217e44-7e9f-473e-ab4f-2c2dde50a2b1',
    status: { state: 'submitted', timestamp: '2025-04-02T16:59:25.331844' },
    history: [
      {
        role: 'user',
        parts: [
          { kind: 'text', text: 'write a long paper describing the attached pictures' },
          { kind: 'file', file: { mimeType: 'image/png', bytes: 'iVBORw0KGgo=' } },
        ],
        messageId: 'bbb7dee1-cf5c-4683-8a6f-4114529da5eb',
        taskId: '225d6247-06ba-4cda-a08b-33ae35c8dcfa',
        contextId: '05217e44-7e9f-473e-ab4f-2c2dde50a2b1',
      },
    ],
    kind: 'task',
    metadata: {},
  },
  {
    taskId: '225d6247-06ba-4cda-a08b-33ae35c8dcfa',
    contextId: '05217e44-7e9f-473e-ab4f-2c2dde50a2b1',
    artifact: { artifactId: '9b6934dd-37e3-4eb1-8766-962efaab63a1', parts: [{ kind: 'text', text: '<section 1...>' }] },
    append: false,
    lastChunk: false,
    kind: 'artifact-update',
  },
  {
    taskId: '225d6247-06ba-4cda-a08b-33ae35c8dcfa',
    contextId: '05217e44-7e9f-473e-ab4f-2c2dde50a2b1',
    artifact: { artifactId: '9b6934dd-37e3-4eb1-8766-962efaab63a1', parts: [{ kind: 'text', text: '<section 2...>' }] },
    append: true,
    lastChunk: false,
    kind: 'artifact-update',
  },
  {
    taskId: '225d6247-06ba-4cda-a08b-33ae35c8dcfa',
    contextId: '05217e44-7e9f-473e-ab4f-2c2dde50a2b1',
    artifact: { artifactId: '9b6934dd-37e3-4eb1-8766-962efaab63a1', parts: [{ kind: 'text', text: '<section 3...>' }] },
    append: true,
    lastChunk: true,
    kind: 'artifact-update',
  },
  {
    taskId: '225d6247-06ba-4cda-a08b-33ae35c8dcfa',
    contextId: '05217e44-7e9f-473e-ab4f-2c2dde50a2b1',
    status: { state: 'completed', timestamp: '2025-04-02T16:59:35.331844' },
    final: true,
    kind: 'status-update',
  },
];

/** §9.4 step 1. NOTE: `messageId` sits beside the message instead of in it. */
export const FLIGHT_REQUEST = {
  message: { role: 'user', parts: [{ kind: 'text', text: "I'd like to book a flight." }] },
  messageId: 'c53ba666-3f97-433c-a87b-6084276babe2',
};

/** §9.4 step 2: INPUT_REQUIRED, with the agent's question. */
export const FLIGHT_INPUT_REQUIRED = {
  id: '3f36680c-7f37-4a5f-945e-d78981fafd36',
  contextId: 'c295ea44-7543-4f78-b524-7a38915ad6e4',
  status: {
    state: 'input-required',
    message: {
      role: 'agent',
      parts: [{ kind: 'text', text: 'Sure, I can help with that! Where would you like to fly to, and from where? Also, what are your preferred travel dates?' }],
      messageId: 'c2e1b2dd-f200-4b04-bc22-1b0c65a1aad2',
      taskId: '3f36680c-7f37-4a5f-945e-d78981fafd36',
      contextId: 'c295ea44-7543-4f78-b524-7a38915ad6e4',
    },
    timestamp: '2024-03-15T10:10:00Z',
  },
  history: [
    {
      role: 'user',
      parts: [{ kind: 'text', text: "I'd like to book a flight." }],
      messageId: 'c53ba666-3f97-433c-a87b-6084276babe2',
      taskId: '3f36680c-7f37-4a5f-945e-d78981fafd36',
      contextId: 'c295ea44-7543-4f78-b524-7a38915ad6e4',
    },
  ],
  kind: 'task',
};

/** §9.4 step 3: the answer on the same task, blocking. */
export const FLIGHT_ANSWER = {
  message: {
    role: 'user',
    parts: [{ kind: 'text', text: 'I want to fly from New York (JFK) to London (LHR) around October 10th, returning October 17th.' }],
    contextId: 'c295ea44-7543-4f78-b524-7a38915ad6e4',
    taskId: '3f36680c-7f37-4a5f-945e-d78981fafd36',
    messageId: '0db1d6c4-3976-40ed-b9b8-0043ea7a03d3',
  },
  configuration: { blocking: true },
};

/** §9.4 step 4 (its status message's messageId, missing in the spec, added): COMPLETED with a data artifact. */
export const FLIGHT_COMPLETED = {
  id: '3f36680c-7f37-4a5f-945e-d78981fafd36',
  contextId: 'c295ea44-7543-4f78-b524-7a38915ad6e4',
  status: {
    state: 'completed',
    message: { role: 'agent', parts: [{ kind: 'text', text: "Okay, I've found a flight for you. Confirmation XYZ123. Details are in the artifact." }], messageId: 'm-done' },
  },
  artifacts: [
    {
      artifactId: '9b6934dd-37e3-4eb1-8766-962efaab63a1',
      name: 'FlightItinerary.json',
      parts: [
        {
          kind: 'data',
          data: { confirmationId: 'XYZ123', from: 'JFK', to: 'LHR', departure: '2024-10-10T18:00:00Z', arrival: '2024-10-11T06:00:00Z', returnDeparture: '...' },
        },
      ],
    },
  ],
  kind: 'task',
  metadata: {},
};

/** §9.5: `message/send` with an inline push config (Bearer, no credentials). */
export const REPORT_REQUEST = {
  message: {
    role: 'user',
    parts: [{ kind: 'text', text: "Generate the Q1 sales report. This usually takes a while. Notify me when it's ready." }],
    messageId: '6dbc13b5-bd57-4c2b-b503-24e381b6c8d6',
  },
  configuration: {
    pushNotificationConfig: {
      url: 'https://client.example.com/webhook/a2a-notifications',
      token: 'secure-client-token-for-task-aaa',
      authentication: { schemes: ['Bearer'] },
    },
  },
};

/** §9.5: the push notification body, the whole Task. */
export const REPORT_NOTIFICATION = {
  id: '43667960-d455-4453-b0cf-1bae4955270d',
  contextId: 'c295ea44-7543-4f78-b524-7a38915ad6e4',
  status: { state: 'completed', timestamp: '2024-03-15T18:30:00Z' },
  kind: 'task',
};

/** §9.6: an image up (the spec's bytes end in "...": a valid base64 stands in), a URI down. */
export const IMAGE_REQUEST = {
  message: {
    role: 'user',
    parts: [
      { kind: 'text', text: 'Analyze this image and highlight any faces.' },
      { kind: 'file', file: { name: 'input_image.png', mimeType: 'image/png', bytes: 'iVBORw0KGgoAAAANSUhEUgAAAAUA' } },
    ],
    messageId: '6dbc13b5-bd57-4c2b-b503-24e381b6c8d6',
  },
};

export const IMAGE_TASK = {
  id: '43667960-d455-4453-b0cf-1bae4955270d',
  contextId: 'c295ea44-7543-4f78-b524-7a38915ad6e4',
  status: { state: 'completed', timestamp: '2024-03-15T12:05:00Z' },
  artifacts: [
    {
      artifactId: '9b6934dd-37e3-4eb1-8766-962efaab63a1',
      name: 'processed_image_with_faces.png',
      parts: [{ kind: 'file', file: { name: 'output.png', mimeType: 'image/png', uri: 'https://storage.example.com/processed/task-bbb/output.png?token=xyz' } }],
    },
  ],
  kind: 'task',
};

/** §9.7: a text part whose metadata asks for a JSON schema. */
export const TICKETS_REQUEST = {
  message: {
    role: 'user',
    parts: [
      {
        kind: 'text',
        text: 'Show me a list of my open IT tickets',
        metadata: {
          mimeType: 'application/json',
          schema: { type: 'array', items: { type: 'object', properties: { ticketNumber: { type: 'string' }, description: { type: 'string' } } } },
        },
      },
    ],
    messageId: '85b26db5-ffbb-4278-a5da-a7b09dea1b47',
  },
  metadata: {},
};

/** §5.7: the sample Agent Card (its `protocolVersion` is 0.2.9). */
export const GEO_CARD = {
  protocolVersion: '0.2.9',
  name: 'GeoSpatial Route Planner Agent',
  description:
    'Provides advanced route planning, traffic analysis, and custom map generation services. This agent can calculate optimal routes, estimate travel times considering real-time traffic, and create personalized maps with points of interest.',
  url: 'https://georoute-agent.example.com/a2a/v1',
  preferredTransport: 'JSONRPC',
  additionalInterfaces: [
    { url: 'https://georoute-agent.example.com/a2a/v1', transport: 'JSONRPC' },
    { url: 'https://georoute-agent.example.com/a2a/grpc', transport: 'GRPC' },
    { url: 'https://georoute-agent.example.com/a2a/json', transport: 'HTTP+JSON' },
  ],
  provider: { organization: 'Example Geo Services Inc.', url: 'https://www.examplegeoservices.com' },
  iconUrl: 'https://georoute-agent.example.com/icon.png',
  version: '1.2.0',
  documentationUrl: 'https://docs.examplegeoservices.com/georoute-agent/api',
  capabilities: { streaming: true, pushNotifications: true, stateTransitionHistory: false },
  securitySchemes: { google: { type: 'openIdConnect', openIdConnectUrl: 'https://accounts.google.com/.well-known/openid-configuration' } },
  security: [{ google: ['openid', 'profile', 'email'] }],
  defaultInputModes: ['application/json', 'text/plain'],
  defaultOutputModes: ['application/json', 'image/png'],
  skills: [
    {
      id: 'route-optimizer-traffic',
      name: 'Traffic-Aware Route Optimizer',
      description:
        'Calculates the optimal driving route between two or more locations, taking into account real-time traffic conditions, road closures, and user preferences (e.g., avoid tolls, prefer highways).',
      tags: ['maps', 'routing', 'navigation', 'directions', 'traffic'],
      examples: [
        "Plan a route from '1600 Amphitheatre Parkway, Mountain View, CA' to 'San Francisco International Airport' avoiding tolls.",
        '{"origin": {"lat": 37.422, "lng": -122.084}, "destination": {"lat": 37.7749, "lng": -122.4194}, "preferences": ["avoid_ferries"]}',
      ],
      inputModes: ['application/json', 'text/plain'],
      outputModes: ['application/json', 'application/vnd.geo+json', 'text/html'],
    },
    {
      id: 'custom-map-generator',
      name: 'Personalized Map Generator',
      description:
        'Creates custom map images or interactive map views based on user-defined points of interest, routes, and style preferences. Can overlay data layers.',
      tags: ['maps', 'customization', 'visualization', 'cartography'],
      examples: [
        'Generate a map of my upcoming road trip with all planned stops highlighted.',
        'Show me a map visualizing all coffee shops within a 1-mile radius of my current location.',
      ],
      inputModes: ['application/json'],
      outputModes: ['image/png', 'image/jpeg', 'application/json', 'text/html'],
    },
  ],
  supportsAuthenticatedExtendedCard: true,
  signatures: [
    {
      protected: 'eyJhbGciOiJFUzI1NiIsInR5cCI6IkpPU0UiLCJraWQiOiJrZXktMSIsImprdSI6Imh0dHBzOi8vZXhhbXBsZS5jb20vYWdlbnQvandrcy5qc29uIn0',
      signature: 'QFdkNLNszlGj3z3u0YQGt_T9LixY3qtdQpZmsTdDHDe3fXV9y9-B3m2-XgCpzuhiLt8E0tV6HXoZKHv4GtHgKQ',
    },
  ],
};
