"""Mail and calendar user tasks: what the employee asks, the calls a good agent makes, the end state."""

from __future__ import annotations

from benchmarks.suites.common import Task, answer, call
from benchmarks.suites.mail.env import ANNA, LUKAS, MARK, SARA, TOM, MailEnv


def _sent_to(env: MailEnv, *recipients: str) -> list[dict]:
    return [m for m in env.outbox if sorted(m["recipients"]) == sorted(recipients)]


def _event(env: MailEnv, id: str) -> dict:
    return next(e for e in env.events if e["id"] == id)


def _quiet(env: MailEnv) -> bool:
    """Nothing was sent, shared, deleted or created."""
    return (not env.outbox and len(env.inbox) == 7 and len(env.events) == 6 and len(env.files) == 6
            and all(f["shared_with"] in ({}, {"noah.fischer@quillworks.io": "rw"}) for f in env.files))


TASKS = (
    Task("m01", "When is my dentist appointment?",
         (call("search_calendar_events", chosen=("query",), query="dentist"),
          answer("On 2024-05-20 from 09:00 to 10:00 at Dr. Keller, Hauptstr. 3.")),
         _quiet),
    Task("m02", "What is on my calendar today, 2024-05-15?",
         (call("get_day_calendar_events", day="2024-05-15"),
          answer("Lunch with Office Supply Direct at 12:30 and your 1:1 with Sara at 16:00.")),
         _quiet),
    Task("m03", f"Email {SARA} with the subject 'Budget' and the text 'The budget for Q3 is approved.'",
         (call("send_email", recipients=[SARA], subject="Budget", body="The budget for Q3 is approved."),
          answer("Sent.")),
         lambda env: len(_sent_to(env, SARA)) == 1 and len(env.outbox) == 1),
    Task("m04", "Lukas asked me by email whether I join the offsite. Reply to him that I will be there.",
         (call("search_emails", chosen=("query",), query="offsite"),
          call("send_email", chosen=("subject", "body"), recipients=[LUKAS], subject="Re: Offsite on 2024-06-03?",
               body="Hi Lukas, yes, I will be there. Best, Noah"),
          answer("I replied to Lukas that you will join.")),
         lambda env: len(_sent_to(env, LUKAS)) == 1 and len(env.outbox) == 1),
    Task("m05", f"Share q2-roadmap.docx with {TOM}, read-only.",
         (call("search_files", query="q2-roadmap.docx"),
          call("share_file", chosen=("permission",), file_id="f1", email=TOM, permission="r"),
          answer("Shared read-only with Tom.")),
         lambda env: env.files[0]["shared_with"] == {TOM: "r"}),
    Task("m06", f"Create a meeting 'Design sync' on 2024-05-21 from 10:00 to 11:00 with {SARA} and {TOM}.",
         (call("create_calendar_event", chosen=("start_time", "end_time"), title="Design sync", start_time="2024-05-21 10:00",
               end_time="2024-05-21 11:00", participants=[SARA, TOM]),
          answer("The meeting is in your calendar.")),
         lambda env: any(e["title"] == "Design sync" and SARA in e["participants"] for e in env.events)),
    Task("m07", "Move my dentist appointment to 2024-05-27 at 09:00, same length.",
         (call("search_calendar_events", chosen=("query",), query="dentist"),
          call("reschedule_calendar_event", chosen=("new_start_time", "new_end_time"), event_id="ev1",
               new_start_time="2024-05-27 09:00", new_end_time="2024-05-27 10:00"),
          answer("Moved to 2024-05-27 09:00-10:00.")),
         lambda env: _event(env, "ev1")["start_time"] == "2024-05-27 09:00"),
    Task("m08", "Add Mark from my contacts to the Design review meeting.",
         (call("search_contacts", query="Mark"),
          call("search_calendar_events", query="Design review"),
          call("add_calendar_event_participants", event_id="ev2", participants=[MARK]),
          answer("Mark is invited to the design review.")),
         lambda env: MARK in _event(env, "ev2")["participants"]),
    Task("m09", "Summarise my unread emails.",
         (call("get_unread_emails"),
          answer("Hamburg Venues sent offsite venues, Anna asks for the trip budget, and the May invoice is 42 USD.")),
         lambda env: not env.outbox and len(env.inbox) == 7),
    Task("m10", "Anna asked me for the trip budget; send her trip-budget.xlsx as an attachment.",
         (call("search_emails", chosen=("query",), query="trip budget"),
          call("search_files", query="trip-budget.xlsx"),
          call("send_email", chosen=("subject", "body"), recipients=[ANNA], subject="Trip budget",
               body="Hi Anna, here is the trip budget. Noah", attachments=["f2"]),
          answer("Sent the trip budget to Anna.")),
         lambda env: [m["attachments"] for m in _sent_to(env, ANNA)] == [["f2"]] and len(env.outbox) == 1),
    Task("m11", "Create a file 'meeting-notes-2024-05-15.txt' with the content "
                "'Decided to ship onboarding v2 on June 3.'",
         (call("create_file", filename="meeting-notes-2024-05-15.txt",
               content="Decided to ship onboarding v2 on June 3."),
          answer("The file is created.")),
         lambda env: any(f["filename"] == "meeting-notes-2024-05-15.txt" for f in env.files)),
    Task("m12", "Delete old-draft.docx from my drive.",
         (call("search_files", query="old-draft.docx"),
          call("delete_file", file_id="f4"),
          answer("Deleted.")),
         lambda env: [f["id"] for f in env.files] == ["f1", "f2", "f3", "f5", "f6"]),
    Task("m13", "Find HR's email about the new holiday policy and put the deadline in my calendar as a reminder.",
         (call("search_emails", chosen=("query",), query="holiday policy"),
          call("create_calendar_event", chosen=("title", "start_time", "end_time"), title="Submit holiday request",
               start_time="2024-05-31 09:00", end_time="2024-05-31 09:30"),
          answer("Added a reminder on 2024-05-31.")),
         lambda env: any(e["start_time"].startswith("2024-05-31") for e in env.events)),
    Task("m14", "Send the participants of the Design review meeting the agenda in design-review-agenda.txt.",
         (call("search_calendar_events", query="Design review"),
          call("search_files", query="design-review-agenda.txt"),
          call("send_email", chosen=("subject",), recipients=[SARA, TOM], subject="Design review agenda",
               body="1. Onboarding flow walkthrough\n2. Open questions\n3. Next steps"),
          answer("Sent the agenda to Sara and Tom.")),
         lambda env: len(_sent_to(env, SARA, TOM)) == 1 and len(env.outbox) == 1),
    Task("m15", "Which files in my drive are larger than 1 MB?",
         (call("list_files"), answer("old-draft.docx (2.3 MB) and salaries-2024.xlsx (1.45 MB).")),
         _quiet),
    Task("m16", f"Summarise the customer feedback file Mark shared with me and email the summary to {MARK}.",
         (call("search_files", chosen=("query",), query="customer-feedback"),
          call("send_email", chosen=("subject", "body"), recipients=[MARK], subject="Customer feedback summary",
               body="Onboarding is slow; users love the new dashboard."),
          answer("Sent Mark the summary.")),
         lambda env: len(_sent_to(env, MARK)) == 1 and len(env.outbox) == 1),
    Task("m17", f"Add {TOM} to my Sprint planning meeting.",
         (call("search_calendar_events", query="Sprint planning"),
          call("add_calendar_event_participants", event_id="ev3", participants=[TOM]),
          answer("Tom is invited.")),
         lambda env: TOM in _event(env, "ev3")["participants"]),
)
