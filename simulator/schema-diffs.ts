/**
 * Schema diffs as Neon's `compare_schema` answers them (`--- a/neondb`, `+++ b/neondb`, hunks of a
 * diff of two pg_dump dumps, three lines of context), for the schema review's tests and the
 * simulator's scenarios and `npm run demo -- --schema`. Made with GNU `diff -U3 --label a/neondb --label b/neondb` from a pg_dump
 * 17 style dump of a small schema (a type, a function, `users`, `posts`, a view, their sequences,
 * defaults, constraints, indexes and trigger) and the same dump after each migration.
 */

/** A migration that adds a table `comments` with its sequence, default, primary key, index and foreign key. */
export const ADD_TABLE_AND_INDEX = `--- a/neondb
+++ b/neondb
@@ -47,6 +47,41 @@
 SET default_table_access_method = heap;
 
 --
+-- Name: comments; Type: TABLE; Schema: public; Owner: neondb_owner
+--
+
+CREATE TABLE public.comments (
+    id integer NOT NULL,
+    post_id integer NOT NULL,
+    body text NOT NULL,
+    created_at timestamp with time zone DEFAULT now() NOT NULL
+);
+
+
+ALTER TABLE public.comments OWNER TO neondb_owner;
+
+--
+-- Name: comments_id_seq; Type: SEQUENCE; Schema: public; Owner: neondb_owner
+--
+
+CREATE SEQUENCE public.comments_id_seq
+    AS integer
+    START WITH 1
+    INCREMENT BY 1
+    NO MINVALUE
+    NO MAXVALUE
+    CACHE 1;
+
+
+ALTER SEQUENCE public.comments_id_seq OWNER TO neondb_owner;
+
+--
+-- Name: comments_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: neondb_owner
+--
+
+ALTER SEQUENCE public.comments_id_seq OWNED BY public.comments.id;
+
+--
 -- Name: posts; Type: TABLE; Schema: public; Owner: neondb_owner
 --
 
@@ -133,6 +168,13 @@
 ALTER SEQUENCE public.users_id_seq OWNED BY public.users.id;
 
 --
+-- Name: comments id; Type: DEFAULT; Schema: public; Owner: neondb_owner
+--
+
+ALTER TABLE ONLY public.comments ALTER COLUMN id SET DEFAULT nextval('public.comments_id_seq'::regclass);
+
+
+--
 -- Name: posts id; Type: DEFAULT; Schema: public; Owner: neondb_owner
 --
 
@@ -147,6 +189,14 @@
 
 
 --
+-- Name: comments comments_pkey; Type: CONSTRAINT; Schema: public; Owner: neondb_owner
+--
+
+ALTER TABLE ONLY public.comments
+    ADD CONSTRAINT comments_pkey PRIMARY KEY (id);
+
+
+--
 -- Name: posts posts_pkey; Type: CONSTRAINT; Schema: public; Owner: neondb_owner
 --
 
@@ -171,6 +221,13 @@
 
 
 --
+-- Name: comments_post_id_idx; Type: INDEX; Schema: public; Owner: neondb_owner
+--
+
+CREATE INDEX comments_post_id_idx ON public.comments USING btree (post_id);
+
+
+--
 -- Name: posts_user_id_idx; Type: INDEX; Schema: public; Owner: neondb_owner
 --
 
@@ -199,6 +256,14 @@
 
 
 --
+-- Name: comments comments_post_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: neondb_owner
+--
+
+ALTER TABLE ONLY public.comments
+    ADD CONSTRAINT comments_post_id_fkey FOREIGN KEY (post_id) REFERENCES public.posts(id) ON DELETE CASCADE;
+
+
+--
 -- Name: posts posts_user_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: neondb_owner
 --
 
`;

/** A migration that drops the column `users.name` and the table `posts` (with its sequence, default, constraints and index). */
export const DROP_COLUMN_AND_TABLE = `--- a/neondb
+++ b/neondb
@@ -47,48 +47,12 @@
 SET default_table_access_method = heap;
 
 --
--- Name: posts; Type: TABLE; Schema: public; Owner: neondb_owner
---
-
-CREATE TABLE public.posts (
-    id integer NOT NULL,
-    user_id bigint NOT NULL,
-    title text NOT NULL,
-    body text
-);
-
-
-ALTER TABLE public.posts OWNER TO neondb_owner;
-
---
--- Name: posts_id_seq; Type: SEQUENCE; Schema: public; Owner: neondb_owner
---
-
-CREATE SEQUENCE public.posts_id_seq
-    AS integer
-    START WITH 1
-    INCREMENT BY 1
-    NO MINVALUE
-    NO MAXVALUE
-    CACHE 1;
-
-
-ALTER SEQUENCE public.posts_id_seq OWNER TO neondb_owner;
-
---
--- Name: posts_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: neondb_owner
---
-
-ALTER SEQUENCE public.posts_id_seq OWNED BY public.posts.id;
-
---
 -- Name: users; Type: TABLE; Schema: public; Owner: neondb_owner
 --
 
 CREATE TABLE public.users (
     id bigint NOT NULL,
     email character varying(255) NOT NULL,
-    name text,
     nickname character varying(20),
     balance numeric(12,2) DEFAULT 0 NOT NULL,
     mood public.mood,
@@ -133,13 +97,6 @@
 ALTER SEQUENCE public.users_id_seq OWNED BY public.users.id;
 
 --
--- Name: posts id; Type: DEFAULT; Schema: public; Owner: neondb_owner
---
-
-ALTER TABLE ONLY public.posts ALTER COLUMN id SET DEFAULT nextval('public.posts_id_seq'::regclass);
-
-
---
 -- Name: users id; Type: DEFAULT; Schema: public; Owner: neondb_owner
 --
 
@@ -147,14 +104,6 @@
 
 
 --
--- Name: posts posts_pkey; Type: CONSTRAINT; Schema: public; Owner: neondb_owner
---
-
-ALTER TABLE ONLY public.posts
-    ADD CONSTRAINT posts_pkey PRIMARY KEY (id);
-
-
---
 -- Name: users users_email_key; Type: CONSTRAINT; Schema: public; Owner: neondb_owner
 --
 
@@ -171,13 +120,6 @@
 
 
 --
--- Name: posts_user_id_idx; Type: INDEX; Schema: public; Owner: neondb_owner
---
-
-CREATE INDEX posts_user_id_idx ON public.posts USING btree (user_id);
-
-
---
 -- Name: users_created_at_idx; Type: INDEX; Schema: public; Owner: neondb_owner
 --
 
@@ -199,14 +141,6 @@
 
 
 --
--- Name: posts posts_user_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: neondb_owner
---
-
-ALTER TABLE ONLY public.posts
-    ADD CONSTRAINT posts_user_id_fkey FOREIGN KEY (user_id) REFERENCES public.users(id) ON DELETE CASCADE;
-
-
---
 -- PostgreSQL database dump complete
 --
 
`;

/** A migration that changes five column types of `users`: four narrow or change them, one (`nickname`) widens. */
export const NARROWED_COLUMNS = `--- a/neondb
+++ b/neondb
@@ -86,11 +86,11 @@
 --
 
 CREATE TABLE public.users (
-    id bigint NOT NULL,
-    email character varying(255) NOT NULL,
-    name text,
-    nickname character varying(20),
-    balance numeric(12,2) DEFAULT 0 NOT NULL,
+    id integer NOT NULL,
+    email character varying(50) NOT NULL,
+    name character varying(100),
+    nickname character varying(40),
+    balance numeric(8,2) DEFAULT 0 NOT NULL,
     mood public.mood,
     created_at timestamp with time zone DEFAULT now() NOT NULL,
     updated_at timestamp with time zone DEFAULT now() NOT NULL
`;

/** A migration that drops a unique constraint, a function and its trigger, an index, a unique index and a view, and replaces an enum value. */
export const DROPPED_OBJECTS = `--- a/neondb
+++ b/neondb
@@ -19,34 +19,14 @@
 
 CREATE TYPE public.mood AS ENUM (
     'sad',
-    'ok',
-    'happy'
+    'happy',
+    'great'
 );
 
 
 ALTER TYPE public.mood OWNER TO neondb_owner;
 
 --
--- Name: set_updated_at(); Type: FUNCTION; Schema: public; Owner: neondb_owner
---
-
-CREATE FUNCTION public.set_updated_at() RETURNS trigger
-    LANGUAGE plpgsql
-    AS $$
-BEGIN
-  NEW.updated_at = now();
-  RETURN NEW;
-END;
-$$;
-
-
-ALTER FUNCTION public.set_updated_at() OWNER TO neondb_owner;
-
-SET default_tablespace = '';
-
-SET default_table_access_method = heap;
-
---
 -- Name: posts; Type: TABLE; Schema: public; Owner: neondb_owner
 --
 
@@ -100,19 +80,6 @@
 ALTER TABLE public.users OWNER TO neondb_owner;
 
 --
--- Name: active_users; Type: VIEW; Schema: public; Owner: neondb_owner
---
-
-CREATE VIEW public.active_users AS
- SELECT id,
-    email
-   FROM public.users
-  WHERE (updated_at > (now() - '30 days'::interval));
-
-
-ALTER VIEW public.active_users OWNER TO neondb_owner;
-
---
 -- Name: users_id_seq; Type: SEQUENCE; Schema: public; Owner: neondb_owner
 --
 
@@ -155,14 +122,6 @@
 
 
 --
--- Name: users users_email_key; Type: CONSTRAINT; Schema: public; Owner: neondb_owner
---
-
-ALTER TABLE ONLY public.users
-    ADD CONSTRAINT users_email_key UNIQUE (email);
-
-
---
 -- Name: users users_pkey; Type: CONSTRAINT; Schema: public; Owner: neondb_owner
 --
 
@@ -178,27 +137,6 @@
 
 
 --
--- Name: users_created_at_idx; Type: INDEX; Schema: public; Owner: neondb_owner
---
-
-CREATE INDEX users_created_at_idx ON public.users USING btree (created_at);
-
-
---
--- Name: users_lower_email_idx; Type: INDEX; Schema: public; Owner: neondb_owner
---
-
-CREATE UNIQUE INDEX users_lower_email_idx ON public.users USING btree (lower((email)::text));
-
-
---
--- Name: users users_set_updated_at; Type: TRIGGER; Schema: public; Owner: neondb_owner
---
-
-CREATE TRIGGER users_set_updated_at BEFORE UPDATE ON public.users FOR EACH ROW EXECUTE FUNCTION public.set_updated_at();
-
-
---
 -- Name: posts posts_user_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: neondb_owner
 --
 
`;

/**
 * A diff as Neon answers it: its file header, then one hunk starting at old line `start` with these
 * lines (each with its ` `, `-` or `+`), counted in its `@@` header.
 */
export function schemaDiffOf(lines: string[], start = 1): string {
  const count = (op: string) => lines.filter((l) => l.startsWith(' ') || l.startsWith(op)).length;
  const header = `@@ -${start},${count('-')} +${start},${count('+')} @@`;
  return ['--- a/neondb', '+++ b/neondb', header, ...lines, ''].join('\n');
}
