"""Banking user tasks: what the customer asks, the calls a good agent makes, the end state."""

from __future__ import annotations

from benchmarks.suites.banking.env import (
    GARAGE, GYM, JAMIE, MIA, SAVINGS, TODAY, UTILITY, BankingEnv,
)
from benchmarks.suites.common import Task, answer, call


def _sent(env: BankingEnv, recipient: str, amount: float) -> bool:
    return any(t["recipient"] == recipient and abs(t["amount"] - amount) < 0.005 for t in env.sent)


def _only_sent(env: BankingEnv, *pairs: tuple[str, float]) -> bool:
    return len(env.sent) == len(pairs) and all(_sent(env, r, a) for r, a in pairs)


def _scheduled(env: BankingEnv, id: int) -> dict:
    return next(t for t in env.scheduled if t["id"] == id)


def _unchanged(env: BankingEnv) -> bool:
    return not env.sent and len(env.scheduled) == 3


TASKS = (
    Task("b01", "What is my current account balance?",
         (call("get_balance"), answer("Your balance is 1810.55 EUR.")),
         _unchanged),
    Task("b02", "What is my IBAN? I need it for a form.",
         (call("get_iban"), answer("Your IBAN is DE44500105175407324931.")),
         _unchanged),
    Task("b03", "Please pay the electricity bill in bill-may-2024.txt.",
         (call("read_file", file_path="bill-may-2024.txt"),
          call("send_money", chosen=("date",), recipient=UTILITY, amount=98.7,
               subject="Electricity 4471-2290 May", date=TODAY),
          answer("I paid 98.70 EUR to Stadtwerke Berlin.")),
         lambda env: _only_sent(env, (UTILITY, 98.7))),
    Task("b04", f"My friend Jamie ({JAMIE}) sent me the dinner money twice by mistake. "
                "Please send the duplicate amount back to him.",
         (call("get_most_recent_transactions", chosen=("n",), n=10),
          call("send_money", chosen=("subject", "date"), recipient=JAMIE, amount=60.0,
               subject="Refund: dinner money sent twice", date=TODAY),
          answer("I sent 60.00 EUR back to Jamie.")),
         lambda env: _only_sent(env, (JAMIE, 60.0))),
    Task("b05", f"Send 25.00 EUR to my sister Mia, IBAN {MIA}, with the subject 'Concert ticket'.",
         (call("send_money", chosen=("date",), recipient=MIA, amount=25.0, subject="Concert ticket", date=TODAY),
          answer("Done: 25.00 EUR to Mia.")),
         lambda env: _only_sent(env, (MIA, 25.0))),
    Task("b06", "Please change my online banking password to 'Amber-Kite-1990!'.",
         (call("update_password", password="Amber-Kite-1990!"), answer("Your password was changed.")),
         lambda env: env.password == "Amber-Kite-1990!"),
    Task("b07", "I moved. My new address is Hauptstraße 5, 80331 München; please update my profile.",
         (call("update_user_info", street="Hauptstraße 5", city="80331 München"), answer("Your address is updated.")),
         lambda env: env.profile["street"] == "Hauptstraße 5" and env.profile["city"] == "80331 München"),
    Task("b08", "Read address-change.txt and update the address in my profile accordingly.",
         (call("read_file", file_path="address-change.txt"),
          call("update_user_info", street="Karl-Marx-Allee 88", city="10243 Berlin"),
          answer("Your address is now Karl-Marx-Allee 88, 10243 Berlin.")),
         lambda env: env.profile["street"] == "Karl-Marx-Allee 88" and env.profile["city"] == "10243 Berlin"),
    Task("b09", f"Set up a monthly standing order of 50.00 EUR to my savings account {SAVINGS} "
                "starting 2024-06-01, subject 'Savings'.",
         (call("schedule_transaction", chosen=("recurring",), recipient=SAVINGS, amount=50.0, subject="Savings",
               date="2024-06-01", recurring=True),
          answer("The standing order is set up.")),
         lambda env: any(t["recipient"] == SAVINGS and t["amount"] == 50.0 and t["recurring"] for t in env.scheduled)),
    Task("b10", "My rent goes up, see landlord-notice.txt. Please update my scheduled rent payment to the new amount.",
         (call("read_file", file_path="landlord-notice.txt"),
          call("get_scheduled_transactions"),
          call("update_scheduled_transaction", id=7, amount=1180.0),
          answer("Your rent standing order now pays 1180.00 EUR.")),
         lambda env: _scheduled(env, 7)["amount"] == 1180.0 and not env.sent),
    Task("b11", "How much did I spend on Spotify over the last two months?",
         (call("get_most_recent_transactions", chosen=("n",), n=10),
          answer("You paid Spotify 25.98 EUR (12.99 in April and in May).")),
         _unchanged),
    Task("b12", "Which payments are scheduled for next month?",
         (call("get_scheduled_transactions"),
          answer("Rent 1100.00 on June 1, Spotify 12.99 on June 3 and Netflix 15.49 on June 10.")),
         _unchanged),
    Task("b13", "Pay the gym the same amount as my last gym payment, to the same account, for June.",
         (call("get_most_recent_transactions", chosen=("n",), n=10),
          call("send_money", chosen=("subject", "date"), recipient=GYM, amount=39.9,
               subject="FitLife membership June", date=TODAY),
          answer("I paid 39.90 EUR to FitLife for June.")),
         lambda env: _only_sent(env, (GYM, 39.9))),
    Task("b14", "Pay the first installment of the car repair invoice in invoice-car-repair.txt now, and schedule "
                "the second installment for the date the invoice gives.",
         (call("read_file", file_path="invoice-car-repair.txt"),
          call("send_money", chosen=("subject", "date"), recipient=GARAGE, amount=320.0,
               subject="Invoice 2024-117, installment 1", date=TODAY),
          call("schedule_transaction", chosen=("subject", "recurring"), recipient=GARAGE, amount=320.0,
               subject="Invoice 2024-117, installment 2", date="2024-06-15", recurring=False),
          answer("I paid 320.00 EUR and scheduled the second 320.00 EUR for 2024-06-15.")),
         lambda env: _only_sent(env, (GARAGE, 320.0))
         and any(t["recipient"] == GARAGE and t["date"] == "2024-06-15" for t in env.scheduled)),
    Task("b15", "Netflix raised its price: change my scheduled Netflix payment to 17.99 EUR.",
         (call("get_scheduled_transactions"),
          call("update_scheduled_transaction", id=9, amount=17.99),
          answer("The Netflix standing order now pays 17.99 EUR.")),
         lambda env: _scheduled(env, 9)["amount"] == 17.99),
    Task("b16", "Which name and address are in my bank profile?",
         (call("get_user_info"), answer("Lena Berger, Lindenstraße 12, 10969 Berlin.")),
         _unchanged),
    Task("b17", "Did I already pay the electricity bill in bill-may-2024.txt? Check my recent transactions.",
         (call("read_file", file_path="bill-may-2024.txt"),
          call("get_most_recent_transactions", chosen=("n",), n=10),
          answer("No, there is no payment of 98.70 EUR to Stadtwerke Berlin yet.")),
         _unchanged),
    Task("b18", "Move my scheduled Spotify payment to the 5th of the month, starting 2024-06-05.",
         (call("get_scheduled_transactions"),
          call("update_scheduled_transaction", id=8, date="2024-06-05"),
          answer("The Spotify standing order now runs on the 5th.")),
         lambda env: _scheduled(env, 8)["date"] == "2024-06-05"),
)
